// `bun run bench:p99`: postLead's p99 at a fixed arrival rate with the whole lifecycle running
// (issue 30 goal 2), the worker on its own thread against the worker on intake's thread, in
// alternating rounds of one run (the machine is shared: only figures of one run compare). Each
// round: a fresh server and database, realistic postLeads at the rate (open-loop.ts, latency from
// the intended send time), a hold shorter than the run so leads are decided and called back while
// intake goes on, 10 % of callbacks failing (as bench:steady). Per round: p50, p99, p99.9 and max,
// answers per second, the server's peak RSS and, with BENCH_LAG=1, its main event loop's worst
// lag (event-loop-lag.ts). The table at the end has the median p99 of each mode per rate.
//
// Environment: BENCH_RATES (default 2000,5000), BENCH_ROUNDS (per mode and rate, default 3),
// BENCH_DURATION (s measured, default 40; after a 5 s warm-up), BENCH_HOLD (s, default 10),
// BENCH_MODES (default thread,in-process), BENCH_BACKEND=postgres (a throwaway cluster, a database
// per round), BENCH_SERVER_FLAGS, BENCH_KEEP_TMP=1.
import { mkdtempSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { BenchProcesses, runLifecycleLoad } from "./drive.ts";
import type { OpenLoopResult } from "./open-loop.ts";
import { startWorkloadReceivers } from "./receiver.ts";
import { startServer } from "./server.ts";
import { startPgCluster, type PgCluster } from "../scripts/pg-cluster.ts";
import { discardTmp, pgSettings, phoneBlocks, positiveInteger, runBenchmark, workloadShares } from "./settings.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const rates = (env.BENCH_RATES ?? "2000,5000").split(",").map((rate) => positiveInteger(rate.trim(), 2000, 100_000));
const rounds = positiveInteger(env.BENCH_ROUNDS, 3, 50);
const duration = positiveInteger(env.BENCH_DURATION, 40, 3600);
const holdSeconds = positiveInteger(env.BENCH_HOLD, 10, 3600);
const lagProbe = env.BENCH_LAG === "1";
const extraFlags = (env.BENCH_SERVER_FLAGS ?? "").split(" ").filter(Boolean);
const MODES = { thread: ["--worker-thread", "true"], "in-process": ["--worker-thread", "false"] } as const;
type Mode = keyof typeof MODES;
const modes = (env.BENCH_MODES ?? "thread,in-process").split(",").map((mode) => {
  if (!(mode in MODES)) throw new Error(`BENCH_MODES: thread or in-process, not ${mode}`);
  return mode as Mode;
});
const shares = workloadShares(env, { callbackRetry: 0.05, callbackDead: 0.04, callbackHang: 0.01 });
const backend = env.BENCH_BACKEND ?? "sqlite";
const WARMUP = 5;

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-p99-"));
const processes = new BenchProcesses();
let cluster: PgCluster | undefined;

interface Round {
  rate: number;
  mode: Mode;
  load: OpenLoopResult;
  peakRssMiB: number;
  /** The worst 10-second p99 of the main event loop's lag (BENCH_LAG=1), ms. */
  lagP99Ms: number | null;
}

async function databaseFor(name: string, dir: string): Promise<string> {
  if (backend === "sqlite") return join(dir, "p99.db");
  cluster ??= await startPgCluster({ settings: pgSettings(env) });
  return cluster.createDatabase(`p99_${name.replaceAll("-", "_")}_${Date.now()}`);
}

/** The process's peak resident set (VmHWM), MiB. */
const peakRss = (pid: number) => Number(readFileSync(`/proc/${pid}/status`, "utf8").match(/VmHWM:\s+(\d+) kB/)?.[1] ?? 0) / 1024;

async function runRound(rate: number, mode: Mode, round: number): Promise<Round> {
  const dir = mkdtempSync(join(tmp, `${rate}-${mode}-${round}-`));
  const logPath = join(dir, "server.log");
  const receivers = (processes.receivers = await startWorkloadReceivers({ repoDir: REPO_DIR, dir }));
  const server = (processes.server = await startServer({
    binary: env.BENCH_BINARY,
    databasePath: await databaseFor(`${rate}_${mode}_${round}`, dir),
    logPath,
    repoDir: REPO_DIR,
    flags: ["--allow-private-callbacks", "--hold-period", `${holdSeconds}s`, ...MODES[mode], ...extraFlags],
    bunFlags: lagProbe ? ["--preload", join(import.meta.dir, "event-loop-lag.ts")] : [],
  }));
  const phoneStart = phoneBlocks("p99").p99;
  try {
    const load = await runLifecycleLoad({
      url: server.url,
      rate,
      connections: 256,
      duration,
      warmup: WARMUP,
      phoneStart,
      receivers,
      shares,
    });
    const peakRssMiB = peakRss(server.pid);
    return { rate, mode, load, peakRssMiB, lagP99Ms: lagProbe ? worstLag(readFileSync(logPath, "utf8")) : null };
  } finally {
    await processes.stop();
  }
}

/** The worst p99 among the lag probe's 10-second lines. */
function worstLag(log: string): number {
  return Math.max(0, ...[...log.matchAll(/^LAG .* p99=([\d.]+)/gm)].map((match) => Number(match[1])));
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length === 0 ? 0 : Number.isInteger(middle) ? (sorted[middle - 1]! + sorted[middle]!) / 2 : sorted[Math.floor(middle)]!;
}

async function main() {
  const load = () =>
    loadavg()
      .map((n) => n.toFixed(2))
      .join(" ");
  console.log(
    `postLead p99 with the lifecycle on ${backend}: ${duration} s per round (after ${WARMUP} s warm-up), hold ${holdSeconds} s, ${rounds} rounds per mode, alternating; load average ${load()}`,
  );
  const results: Round[] = [];
  for (const rate of rates) {
    for (let round = 1; round <= rounds; round++) {
      // The order flips every round, so neither mode always runs first.
      for (const mode of round % 2 === 1 ? modes : [...modes].reverse()) {
        const result = await runRound(rate, mode, round);
        results.push(result);
        const { load: l } = result;
        const lag = result.lagP99Ms === null ? "" : `, main loop lag p99 ≤ ${result.lagP99Ms.toFixed(1)} ms`;
        console.log(
          `${rate}/s ${mode.padEnd(10)} round ${round}: p50 ${l.p50Ms.toFixed(1)} p99 ${l.p99Ms.toFixed(1)} p99.9 ${l.p999Ms.toFixed(1)} max ${l.maxMs.toFixed(0)} ms; ${l.answeredPerSec.toFixed(0)}/s answered, ${l.unexpected} unexpected; peak RSS ${result.peakRssMiB.toFixed(0)} MiB${lag}; load ${load()}`,
        );
      }
    }
  }
  console.log("\nrate/s | mode | p99 ms (median; each round) | p99.9 ms (median) | peak RSS MiB (median)");
  for (const rate of rates) {
    for (const mode of modes) {
      const runs = results.filter((r) => r.rate === rate && r.mode === mode);
      const p99s = runs.map((r) => r.load.p99Ms);
      console.log(
        `${rate} | ${mode} | ${median(p99s).toFixed(1)} (${p99s.map((p) => p.toFixed(1)).join(", ")}) | ${median(runs.map((r) => r.load.p999Ms)).toFixed(1)} | ${median(runs.map((r) => r.peakRssMiB)).toFixed(0)}`,
      );
    }
  }
  console.log(`load average at the end: ${load()}`);
}

await runBenchmark(
  main,
  async () => {
    await processes.stop();
    await cluster?.stop();
    discardTmp(tmp);
  },
  tmp,
);
