// `bun run bench:steady`: the sustainable full lifecycle (issue 20). A fixed arrival rate of
// realistic postLeads (open-loop.ts, workload.mjs) for minutes, with a short hold, so the worker
// decides and calls back while intake goes on; callbacks to the mock receiver, a share of which fail
// (steady-sample.ts says what is sampled). Per minute: intake, decisions and callback attempts per
// second, the queues (leads past their hold, callbacks due) and their oldest item, the server's RSS.
// At the end: whether every lead was decided, and every healthy callback delivered, within its hold
// plus a few seconds (steady-verdict.ts). A rate passes if so.
//
// Environment: BENCH_RATES (leads/s, comma-separated, default 5000), or BENCH_SEARCH=LOW-HIGH (the
// highest passing rate between them, by bisection to within 10%); BENCH_DURATION (s, default 180),
// BENCH_HOLD (s, default 10), BENCH_SLACK (s past the hold a lead or callback may take, default 5),
// BENCH_LOG_LEVEL (the server's, default info), BENCH_SERVER_FLAGS (more flags, space-separated),
// BENCH_CPU_PROF=1 (the server writes a CPU profile beside its log, kept, as Markdown and as a
// .cpuprofile for bench/profile-samples.ts: the Markdown's times weigh idle gaps in), BENCH_LAG=1
// (event-loop-lag.ts in the server: its event loop's lag in its log, kept),
// the workload's shares (settings.ts), BENCH_KEEP_TMP=1. Each rate runs on a fresh server and database:
// SQLite's, or with BENCH_BACKEND=postgres a database of its own on a throwaway PostgreSQL cluster
// (durable settings, BENCH_PG_SETTINGS as for bench:pg), one instance.
// Before the rates, a reference step measures the peer's saturated postLead rate on this machine
// (peer-reference.ts; BENCH_PEER=0 skips it), and the end prints the best rate as a ratio to it.
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BenchProcesses, runLifecycleLoad } from "./drive.ts";
import type { OpenLoopResult } from "./open-loop.ts";
import { startWorkloadReceivers } from "./receiver.ts";
import { writeJson } from "./report.ts";
import { startServer } from "./server.ts";
import { startPgCluster, type PgCluster } from "../scripts/pg-cluster.ts";
import { discardTmp, pgSettings, phoneBlocks, positiveInteger, runBenchmark, workloadShares } from "./settings.ts";
import { measurePeerPostLead, peerRatioLine } from "./peer-reference.ts";
import { byMinute, printMinutes, startSampler, type Sample } from "./steady-sample.ts";
import { printVerdict, verdictOf, type Verdict } from "./steady-verdict.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const duration = positiveInteger(env.BENCH_DURATION, 180, 3600);
const holdSeconds = positiveInteger(env.BENCH_HOLD, 10, 3600);
const slackSeconds = positiveInteger(env.BENCH_SLACK, 5, 3600);
const logLevel = env.BENCH_LOG_LEVEL ?? "info";
const extraFlags = (env.BENCH_SERVER_FLAGS ?? "").split(" ").filter(Boolean);
const profile = env.BENCH_CPU_PROF === "1";
const lagProbe = env.BENCH_LAG === "1";
if (profile || lagProbe) env.BENCH_KEEP_TMP = "1";
// 10% of callbacks fail: 5% once (503, then 200 on the retry), 4% always (503), 1% never answer.
const shares = workloadShares(env, { callbackRetry: 0.05, callbackDead: 0.04, callbackHang: 0.01 });
const CONNECTIONS = 256;
/** After the load stops, how long the queues may take to empty before the verdict is read. */
const DRAIN_SECONDS = holdSeconds + slackSeconds + 15;
/** Bisection stops when the highest passing and lowest failing rates are this close. */
const SEARCH_PRECISION = 1.1;

const backend = env.BENCH_BACKEND ?? "sqlite";
if (backend !== "sqlite" && backend !== "postgres") throw new Error(`BENCH_BACKEND: sqlite or postgres, not ${backend}`);

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-steady-"));
const processes = new BenchProcesses();
let cluster: PgCluster | undefined;

async function cleanUp() {
  await processes.stop();
  await cluster?.stop();
  discardTmp(tmp);
}

/** The run's database: a file in its folder, or a fresh database on the cluster. */
async function databaseFor(rate: number, dir: string): Promise<string> {
  if (backend === "sqlite") return join(dir, "steady.db");
  cluster ??= await startPgCluster({ settings: pgSettings(env) });
  return cluster.createDatabase(`steady_${rate}_${Date.now()}`);
}

interface RunResult {
  rate: number;
  load: OpenLoopResult;
  samples: Sample[];
  verdict: Verdict;
}

/** A rate whose run could not finish (the generator was killed, say) did not pass. */
type Run = RunResult | { rate: number; failed: string };
const passed = (run: Run) => "verdict" in run && run.verdict.passed;

async function tryRate(rate: number): Promise<Run> {
  try {
    return await runAt(rate);
  } catch (error) {
    const failed = error instanceof Error ? error.message : String(error);
    console.log(`  ${rate} leads/s: NOT SUSTAINED: the run failed: ${failed}`);
    return { rate, failed };
  }
}

async function runAt(rate: number): Promise<RunResult> {
  const dir = mkdtempSync(join(tmp, `rate-${rate}-`));
  const databasePath = await databaseFor(rate, dir);
  const receivers = (processes.receivers = await startWorkloadReceivers({ repoDir: REPO_DIR, dir }));
  const server = (processes.server = await startServer({
    binary: undefined,
    databasePath,
    logPath: join(dir, "server.log"),
    repoDir: REPO_DIR,
    flags: ["--allow-private-callbacks", "--hold-period", `${holdSeconds}s`, "--log-level", logLevel, ...extraFlags],
    bunFlags: profile ? ["--cpu-prof", "--cpu-prof-md", `--cpu-prof-dir=${dir}`] : lagProbe ? ["--preload", join(import.meta.dir, "event-loop-lag.ts")] : [],
  }));
  console.log(`\n${rate} leads/s for ${duration} s (hold ${holdSeconds} s); logs in ${dir}`);
  const sampler = startSampler({ server, receiver: receivers.healthy, databasePath, onSample: (sample) => console.log(`  ${sample.line}`) });
  const phoneStart = phoneBlocks("steady").steady;
  let load: OpenLoopResult;
  let samples: Sample[];
  try {
    load = await runLifecycleLoad({
      url: server.url,
      rate,
      connections: CONNECTIONS,
      duration,
      warmup: 0,
      phoneStart,
      receivers,
      shares,
    });
    console.log(`  load stopped: ${load.answered} answered (${load.answeredPerSec.toFixed(0)}/s), p99 ${load.p99Ms.toFixed(1)} ms; draining`);
    await sampler.drain((holdSeconds + slackSeconds + 2) * 1000, DRAIN_SECONDS * 1000);
  } catch (error) {
    // The minutes sampled still say how far it got.
    const sampled = sampler.stop();
    if (sampled.length > 0) printMinutes(byMinute(sampled, { measuredFrom: sampled[0]!.at, measuredTo: Date.now() }));
    throw error;
  } finally {
    samples = sampler.stop();
    await processes.stop();
  }
  const verdict = await verdictOf(databasePath, { holdMs: holdSeconds * 1000, slackMs: slackSeconds * 1000, load });
  printMinutes(byMinute(samples, load));
  printVerdict(rate, verdict);
  return { rate, load, samples, verdict };
}

/** The rates to run: the listed ones, or a bisection for the highest that passes. */
async function runRates(): Promise<Run[]> {
  const runs: Run[] = [];
  const search = env.BENCH_SEARCH?.match(/^(\d+)-(\d+)$/);
  if (!search) {
    const rates = (env.BENCH_RATES ?? "5000").split(",").map((rate) => positiveInteger(rate.trim(), 5000, 100_000));
    for (const rate of rates) runs.push(await tryRate(rate));
    return runs;
  }
  let [passing, failing] = [Number(search[1]), Number(search[2])];
  const high = await tryRate(failing);
  runs.push(high);
  if (passed(high)) return runs;
  while (failing / passing > SEARCH_PRECISION) {
    const rate = Math.round(Math.sqrt(passing * failing) / 100) * 100;
    const run = await tryRate(rate);
    runs.push(run);
    if (passed(run)) passing = rate;
    else failing = rate;
  }
  return runs;
}

async function main() {
  console.log(
    `Lead Ingress steady state on ${backend}: ${duration} s per rate, hold ${holdSeconds} s, slack ${slackSeconds} s; callback shares ${JSON.stringify(shares)}; load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  const reference = await measurePeerPostLead(REPO_DIR);
  console.log("rps" in reference ? `peer reference: saturated postLead ${reference.rps.toFixed(0)}/s` : `peer reference skipped: ${reference.skipped}`);
  const runs = await runRates();
  console.log("\nrate/s | intake/s | p99 ms | decided/s | delivered/s | server cores | server µs/lead | max RSS MiB | passed");
  for (const run of runs) {
    if (!("verdict" in run)) {
      console.log(`${run.rate} | - | - | - | - | - | NO (${run.failed})`);
      continue;
    }
    const { rate, load, samples, verdict } = run;
    // The minutes after the first (the hold, when nothing is due yet) and before the partial last.
    const loaded = byMinute(samples, load).filter((m) => m.loaded);
    const steady = loaded.length > 2 ? loaded.slice(1, -1) : loaded;
    const mean = (f: (m: (typeof steady)[number]) => number) => steady.reduce((sum, m) => sum + f(m), 0) / Math.max(1, steady.length);
    const rss = Math.max(...samples.map((s) => s.rssMiB));
    const cores = mean((m) => m.serverCores);
    const perLead =
      (cores /
        Math.max(
          1,
          mean((m) => m.acceptedPerSec),
        )) *
      1e6;
    console.log(
      `${rate} | ${load.answeredPerSec.toFixed(0)} | ${load.p99Ms.toFixed(1)} | ${mean((m) => m.decidedPerSec).toFixed(0)} | ${mean((m) => m.deliveredPerSec).toFixed(0)} | ${cores.toFixed(2)} | ${perLead.toFixed(0)} | ${rss.toFixed(0)} | ${verdict.passed ? "yes" : "NO"}`,
    );
  }
  const best = runs.filter(passed).sort((a, b) => b.rate - a.rate)[0];
  console.log("(decided/s, delivered/s and cores: the mean of the whole minutes after the first)");
  console.log(best ? `highest sustained rate: ${best.rate} leads/s` : "no rate sustained");
  console.log(peerRatioLine(best?.rate, reference, backend));
  const resultsPath = join(REPO_DIR, ".bench", backend === "sqlite" ? "steady.json" : "steady-postgres.json");
  writeJson(resultsPath, {
    finishedAt: new Date().toISOString(),
    peerReference: reference,
    settings: { backend, postgres: cluster?.binaries, duration, holdSeconds, slackSeconds, shares, logLevel, extraFlags },
    runs,
  });
  console.log(`results written to ${resultsPath}`);
}

await runBenchmark(main, cleanUp, tmp);
