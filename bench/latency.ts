// `bun run bench:latency`: latency under a steady arrival rate (issue 20), from the open-loop
// generator (open-loop.ts, its own Bun process): p50/p99/p99.9 from each request's intended send
// time, for prePing and postLead at each rate, with the realistic workload (workload.mjs: random
// numbers, callback URLs on the mock receiver). First, the generator alone against the service's
// no-op route at the highest rate: whether it holds that rate, and the CPU it takes to.
//
// One server and one database for the whole run, with the worker's hold (BENCH_HOLD, default 1h)
// longer than the run: intake only, as in `bun run bench`. A shorter hold (e.g. 10s) adds deciding
// and callbacks to the mock receiver, which fail as the workload's callback shares say.
//
// Environment: BENCH_RATES (req/s, default 1000,2000,5000), BENCH_DURATION (s, default 10, after a
// 3 s warm-up), BENCH_QUICK=1 (2 s after 1 s), BENCH_HOLD, the workload's shares (settings.ts:
// workloadShares), BENCH_KEEP_TMP=1.
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { basicAuth, invalidLead, noopBody, PHONE_SLOT, prePingTemplate, workloadLeadTemplate } from "./bodies.ts";
import { cpuSnapshot, cpuUsed, rssMiB, type CpuUsed } from "./cpu.ts";
import { BenchProcesses, runOpenLoopLoad } from "./drive.ts";
import type { OpenLoopOptions, OpenLoopResult } from "./open-loop.ts";
import { startWorkloadReceivers } from "./receiver.ts";
import { writeJson } from "./report.ts";
import { startServer } from "./server.ts";
import { loadTiming, phoneBlocks, positiveInteger, runBenchmark, workloadShares, discardTmp } from "./settings.ts";
import type { WorkloadShares } from "./workload.mjs";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const rates = (env.BENCH_RATES ?? "1000,2000,5000").split(",").map((rate) => positiveInteger(rate.trim(), 1000, 100_000));
const { quick, duration, warmup } = loadTiming(env);
const hold = env.BENCH_HOLD ?? "1h";
const shares = workloadShares(env);
const GOAL = { scenario: "postLead", rate: 2000, p99Ms: 10 };
// Far more than 5,000 req/s needs at a few milliseconds each: a stall shows as latency, not as a
// generator that stops sending.
const CONNECTIONS = 256;

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-latency-"));
const logPath = join(tmp, "server.log");
const processes = new BenchProcesses();

async function cleanUp() {
  await processes.stop();
  discardTmp(tmp);
}

interface Row {
  scenario: string;
  result: OpenLoopResult;
  /** CPU seconds over the run: the server's, the generator's (with this process), other processes'. */
  cpu: CpuUsed;
  /** The server's resident memory at the end of the run (the one server serves every run). */
  serverRssMiB: number;
}

/** CPU seconds per second of the run. */
const cores = (row: Row, seconds: number) => seconds / row.cpu.seconds;

async function measure(scenario: string, options: Omit<OpenLoopOptions, "url" | "headers" | "duration" | "warmup" | "connections">): Promise<Row> {
  const [running, callbacks] = [processes.server!, processes.receivers!.healthy];
  const before = cpuSnapshot(running.pid, callbacks.pid);
  const result = await runOpenLoopLoad({
    url: running.url,
    headers: { authorization: basicAuth("bench", "bench-password") },
    duration,
    warmup,
    connections: CONNECTIONS,
    ...options,
  });
  const row = { scenario, result, cpu: cpuUsed(before, cpuSnapshot(running.pid, callbacks.pid)), serverRssMiB: rssMiB(running.pid) };
  console.log(`  ${describe(row)}`);
  return row;
}

const ms = (n: number) => n.toFixed(2);
const describe = (row: Row) => {
  const r = row.result;
  return (
    `${row.scenario} at ${r.rate}/s: ${r.answeredPerSec.toFixed(0)} answered/s, p50 ${ms(r.p50Ms)} ms, p99 ${ms(r.p99Ms)} ms, p99.9 ${ms(r.p999Ms)} ms, max ${ms(r.maxMs)} ms; ` +
    `send lag p99 ${ms(r.sendLagP99Ms)} ms; cores: generator ${r.generatorCores.toFixed(2)}, server ${cores(row, row.cpu.server).toFixed(2)}, other processes ${cores(row, row.cpu.other).toFixed(2)}; server RSS ${row.serverRssMiB.toFixed(0)} MiB`
  );
};

function workloadFor(template: string, phoneStart: number, workloadShares: WorkloadShares) {
  const { healthy, failingBases } = processes.receivers!;
  return {
    template,
    slot: PHONE_SLOT,
    invalidBody: invalidLead,
    phoneStart,
    callbackBase: healthy.url,
    failingBases,
    shares: workloadShares,
    seed: phoneStart,
  };
}

function printTable(rows: Row[]): void {
  const header = [
    "scenario",
    "rate/s",
    "answered/s",
    "p50 ms",
    "p99 ms",
    "p99.9 ms",
    "max ms",
    "lag p99 ms",
    "gen cores",
    "server cores",
    "other cores",
    "RSS MiB",
    "unexpected",
  ];
  const cells = rows.map((row) => {
    const r = row.result;
    return [
      row.scenario,
      String(r.rate),
      r.answeredPerSec.toFixed(0),
      ms(r.p50Ms),
      ms(r.p99Ms),
      ms(r.p999Ms),
      ms(r.maxMs),
      ms(r.sendLagP99Ms),
      r.generatorCores.toFixed(2),
      cores(row, row.cpu.server).toFixed(2),
      cores(row, row.cpu.other).toFixed(2),
      row.serverRssMiB.toFixed(0),
      String(r.unexpected + r.errors + r.unanswered),
    ];
  });
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const row of cells) console.log(line(row));
}

async function main() {
  console.log(
    `Lead Ingress open-loop latency${quick ? " (quick)" : ""}: ${rates.join(", ")} req/s, ${duration} s each after ${warmup} s warm-up; up to ${CONNECTIONS} connections; hold ${hold}`,
  );
  console.log(`workload shares: ${JSON.stringify(shares)}; database and logs in ${tmp}`);
  console.log(
    `load average before start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  processes.receivers = await startWorkloadReceivers({ repoDir: REPO_DIR, dir: tmp });
  processes.server = await startServer({
    binary: undefined,
    databasePath: join(tmp, "latency.db"),
    logPath,
    repoDir: REPO_DIR,
    flags: ["--allow-private-callbacks", "--hold-period", hold],
  });
  const blocks = phoneBlocks(...rates.flatMap((rate) => [`prePing@${rate}`, `postLead@${rate}`]));
  const rows: Row[] = [];
  rows.push(await measure("generator alone (no-op route)", { path: "/bench/noop", rate: Math.max(...rates), body: noopBody }));
  for (const rate of rates) {
    rows.push(await measure("prePing", { path: "/v1/prePing", rate, workload: workloadFor(prePingTemplate, blocks[`prePing@${rate}`]!, {}) }));
    rows.push(await measure("postLead", { path: "/v1/postLead", rate, workload: workloadFor(workloadLeadTemplate, blocks[`postLead@${rate}`]!, shares) }));
  }

  console.log("");
  printTable(rows);
  const goal = rows.find((r) => r.scenario === GOAL.scenario && r.result.rate === GOAL.rate);
  if (goal)
    console.log(
      `goal: ${GOAL.scenario} p99 ≤ ${GOAL.p99Ms} ms at ${GOAL.rate}/s: ${ms(goal.result.p99Ms)} ms, ${goal.result.p99Ms <= GOAL.p99Ms ? "met" : "NOT MET"}`,
    );
  for (const { scenario, result } of rows) {
    if (result.unexpected + result.errors + result.unanswered > 0)
      console.log(`WARNING: ${scenario} at ${result.rate}/s: ${JSON.stringify(result.statuses)}, ${result.unanswered} unanswered`);
  }
  const resultsPath = join(REPO_DIR, ".bench", "latency.json");
  writeJson(resultsPath, {
    finishedAt: new Date().toISOString(),
    settings: { quick, rates, duration, warmup, hold, shares, connections: CONNECTIONS, bun: Bun.version, loadAverageAtEnd: loadavg() },
    rows,
  });
  console.log(`results written to ${resultsPath}`);
}

await runBenchmark(main, cleanUp, logPath);
