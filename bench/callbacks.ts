// `bun run bench:callbacks`: callback delivery throughput, and intake while the worker delivers.
//  1. Drain: DRAIN_COUNT decided leads (accepted, callback pending and due) are seeded into a fresh
//     database; the server starts with its worker and delivers them to the mock receiver (its own
//     process, answering 200 at once and verifying every signature). Callbacks/s and drain time.
//  2. Intake while draining: the postLead accept load against the server with `--worker false`,
//     and against an identical copy of the database with the worker on and enough due callbacks
//     to keep it busy for the whole load, in rounds. The ratio of the mean req/s figures, and
//     callbacks/s meanwhile.
//
// Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50), BENCH_ROUNDS
// (intake rounds, default 2), BENCH_QUICK=1 (3,000 callbacks, one round of 2 s),
// BENCH_CALLBACK_CONCURRENCY (passed as --callback-concurrency; the server's default when unset),
// BENCH_CPU_PROF=1 (worker-on servers write a markdown CPU profile into the temporary directory,
// which is then kept), BENCH_KEEP_TMP=1.
import { Database } from "bun:sqlite";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { basicAuth, PHONE_SLOT, validLeadTemplate } from "./bodies.ts";
import { callbackWarnings, goalsOf, printCallbackReport } from "./callbacks-report.ts";
import { cpuSnapshot, cpuUsed, disturbed, waitForQuiet, type CpuSnapshot, type CpuUsed } from "./cpu.ts";
import { killLoad, runLoad, type LoadResult } from "./drive.ts";
import { readReceiverLog, startReceiver, type BenchReceiver } from "./receiver.ts";
import { writeJson, type ScenarioResult } from "./report.ts";
import { seedLeads } from "./seed.ts";
import { selfCheck } from "./self-check.ts";
import { startServer, type BenchServer } from "./server.ts";
import { PHONE_BLOCK, phoneBlocks as makePhoneBlocks, positiveInteger, runBenchmark } from "./settings.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const quick = env.BENCH_QUICK === "1";
const DRAIN_COUNT = quick ? 3_000 : 10_000;
const duration = quick ? 2 : positiveInteger(env.BENCH_DURATION, 10, 10_000);
const warmup = quick ? 1 : 3;
const connections = positiveInteger(env.BENCH_CONNECTIONS, 50, 10_000);
const concurrency = env.BENCH_CALLBACK_CONCURRENCY ? positiveInteger(env.BENCH_CALLBACK_CONCURRENCY, 64, 10_000) : undefined;
const rounds = quick ? 1 : positiveInteger(env.BENCH_ROUNDS, 2, 10_000);
const profile = env.BENCH_CPU_PROF === "1";
const POLL_MS = 100;
// Other work on this shared machine skews every figure: each measurement waits (bounded) for a
// quiet second first, and reports the CPU used meanwhile by anything but the benchmark's processes.
const QUIET_SHARE = 0.15;
const QUIET_WAIT_MS = 60_000;
const DRAIN_TIMEOUT_MS = 120_000;

const phoneBlocks = makePhoneBlocks("drainSeed", "intakeSeed", "accept");

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-callbacks-"));
const serverLog = join(tmp, "server.log");
const running = new Set<{ stop(): Promise<void> }>();
const keepFiles = env.BENCH_KEEP_TMP === "1" || profile;
const removeDatabase = (path: string) => ["", "-wal", "-shm"].forEach((suffix) => rmSync(path + suffix, { force: true }));

async function cleanUp() {
  killLoad();
  await Promise.all([...running].map((p) => p.stop()));
  running.clear();
  if (keepFiles || env.BENCH_KEEP_TMP === "1") console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));

/** Starts a process and remembers it, so an interrupted run stops it too. */
async function track<T extends { stop(): Promise<void> }>(started: Promise<T>): Promise<T> {
  const p = await started;
  running.add(p);
  return p;
}
async function stop(p: { stop(): Promise<void> }) {
  await p.stop();
  running.delete(p);
}

const WORKER_FLAGS = [
  "--worker",
  "true",
  "--allow-private-callbacks",
  "--worker-poll-interval",
  "50ms",
  ...(concurrency ? ["--callback-concurrency", String(concurrency)] : []),
];
const boot = (databasePath: string, worker: boolean): Promise<BenchServer> =>
  track(
    startServer({
      binary: undefined,
      databasePath,
      logPath: serverLog,
      repoDir: REPO_DIR,
      flags: worker ? WORKER_FLAGS : ["--worker", "false"],
      bunFlags: worker && profile ? ["--cpu-prof-md", `--cpu-prof-dir=${tmp}`] : [],
    }),
  );

/** A fresh, migrated database holding the 'bench' vendor; returns the vendor's signing secret. */
async function freshDatabase(databasePath: string): Promise<string> {
  await stop(await boot(databasePath, false));
  const sqlite = new Database(databasePath, { readonly: true });
  try {
    return (sqlite.query("SELECT signing_secret FROM vendors WHERE name = 'bench'").get() as { signing_secret: string }).signing_secret;
  } finally {
    sqlite.close();
  }
}

async function quietMachine(what: string): Promise<number> {
  const share = await waitForQuiet(QUIET_SHARE, QUIET_WAIT_MS);
  if (share > QUIET_SHARE)
    console.log(`  (machine still ${(share * 100).toFixed(0)}% busy after ${QUIET_WAIT_MS / 1000} s of waiting; measuring ${what} anyway)`);
  return share;
}

interface QueueCounts {
  delivered: number;
  pending: number;
  dead: number;
}

function queueCounts(sqlite: Database): QueueCounts {
  const rows = sqlite.query("SELECT status, count(*) AS n FROM callbacks WHERE status <> 'held' GROUP BY status").all() as { status: string; n: number }[];
  const n = (status: string) => rows.find((r) => r.status === status)?.n ?? 0;
  return { delivered: n("delivered"), pending: n("pending"), dead: n("dead") };
}

/** What the database says about the attempts, once the server has stopped. */
function attemptStats(databasePath: string) {
  const sqlite = new Database(databasePath, { readonly: true });
  try {
    const one = (sql: string) => (sqlite.query(sql).get() as { v: number | null }).v ?? 0;
    const durations = (sqlite.query("SELECT duration_ms AS v FROM callback_attempts ORDER BY duration_ms").all() as { v: number }[]).map((r) => r.v);
    const pct = (p: number) => durations[Math.min(durations.length - 1, Math.max(0, Math.ceil(p * durations.length) - 1))] ?? 0;
    return {
      ...queueCounts(sqlite),
      attempts: durations.length,
      failedAttempts: one("SELECT count(*) AS v FROM callback_attempts WHERE status_code IS NOT 200"),
      firstAttemptAt: one("SELECT min(started_at) AS v FROM callback_attempts"),
      lastDeliveredAt: one("SELECT max(delivered_at) AS v FROM callbacks"),
      attemptP50Ms: pct(0.5),
      attemptP99Ms: pct(0.99),
    };
  } finally {
    sqlite.close();
  }
}

async function drainPhase() {
  const databasePath = join(tmp, "drain.db");
  const secret = await freshDatabase(databasePath);
  const receiverLog = join(tmp, "receiver-drain.log");
  const receiver = await track(startReceiver({ repoDir: REPO_DIR, logPath: receiverLog, secret }));
  const seedMs = seedLeads(databasePath, DRAIN_COUNT, phoneBlocks.drainSeed, { callbackUrl: `${receiver.url}/callback` });
  console.log(`  seeded ${DRAIN_COUNT.toLocaleString("en-US")} decided leads in ${(seedMs / 1000).toFixed(1)} s; starting the server with its worker`);
  const quietBefore = await quietMachine("the drain");

  const spawnedAt = Date.now();
  const server = await boot(databasePath, true);
  const readyAt = Date.now();
  const sqlite = new Database(databasePath, { readonly: true });
  // CPU is counted from the first poll (the server's start-up is not delivery work) to the last.
  let first: { counts: QueueCounts; cpu: CpuSnapshot } | undefined;
  let counts: QueueCounts = { delivered: 0, pending: DRAIN_COUNT, dead: 0 };
  try {
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (counts.delivered + counts.dead < DRAIN_COUNT && Date.now() < deadline) {
      counts = queueCounts(sqlite);
      first ??= { counts, cpu: cpuSnapshot(server.pid, receiver.pid) };
      if (counts.delivered + counts.dead < DRAIN_COUNT) await Bun.sleep(POLL_MS);
    }
  } finally {
    sqlite.close();
  }
  const observedAt = Date.now();
  const cpu = cpuUsed(first!.cpu, cpuSnapshot(server.pid, receiver.pid));
  const deliveredMeanwhile = counts.delivered - first!.counts.delivered;
  await stop(server);
  await stop(receiver);
  if (counts.delivered + counts.dead < DRAIN_COUNT)
    throw new Error(`drain: only ${counts.delivered} of ${DRAIN_COUNT} delivered after ${DRAIN_TIMEOUT_MS} ms (${JSON.stringify(counts)})`);

  const stats = attemptStats(databasePath);
  const drainMs = stats.lastDeliveredAt - stats.firstAttemptAt;
  return {
    callbacks: DRAIN_COUNT,
    seedMs: Math.round(seedMs),
    ...stats,
    drainMs,
    callbacksPerSec: stats.delivered / (drainMs / 1000),
    wallMs: { spawnToReady: readyAt - spawnedAt, spawnToAllDelivered: observedAt - spawnedAt },
    quietBefore,
    cpu: {
      ...cpu,
      delivered: deliveredMeanwhile,
      serverMsPerCallback: deliveredMeanwhile > 0 ? (cpu.server * 1000) / deliveredMeanwhile : 0,
      receiverMsPerCallback: deliveredMeanwhile > 0 ? (cpu.receiver * 1000) / deliveredMeanwhile : 0,
    },
    receiver: readReceiverLog(receiverLog),
  };
}

export type Drain = Awaited<ReturnType<typeof drainPhase>>;

interface IntakeRun {
  worker: boolean;
  scenario: ScenarioResult;
  /** Busy share of the machine in the second before the load started. */
  quietBefore: number;
  cpu: CpuUsed;
  /** With the worker: callbacks delivered during the measured run, and how many were left after it. */
  window?: { delivered: number; seconds: number; callbacksPerSec: number; leftAfter: number; dead: number };
}

/** One postLead accept load against a fresh copy of the seeded database, with or without the worker. */
async function intakeRun(templatePath: string, worker: boolean, round: number, receiver: BenchReceiver): Promise<IntakeRun> {
  const databasePath = join(tmp, `intake-${round}-${worker ? "worker" : "baseline"}.db`);
  removeDatabase(databasePath); // a repeated run starts afresh
  copyFileSync(templatePath, databasePath); // the seed left one checkpointed file: every run starts from the same state
  const title = `postLead accept, ${worker ? "worker delivering" : "--worker false"} (round ${round})`;
  // Before the server starts: its worker starts delivering at once.
  const quietBefore = await quietMachine(title);
  const server = await boot(databasePath, worker);
  const before = cpuSnapshot(server.pid, receiver.pid);
  const clearing = setInterval(() => void receiver.clear().catch(() => {}), 1_000); // its memory stays small; its log keeps count
  let result: LoadResult;
  try {
    result = await runLoad({
      url: server.url,
      path: "/v1/postLead",
      connections,
      duration,
      warmup,
      headers: { authorization: basicAuth("bench", "bench-password") },
      template: validLeadTemplate,
      slot: PHONE_SLOT,
      phoneStart: phoneBlocks.accept,
      phoneCount: PHONE_BLOCK,
    });
  } finally {
    clearInterval(clearing);
  }
  const run: IntakeRun = {
    worker,
    scenario: { key: worker ? "intakeWorker" : "intakeNoWorker", title, expectStatus: 200, result },
    quietBefore,
    cpu: cpuUsed(before, cpuSnapshot(server.pid, receiver.pid)),
  };
  await stop(server);
  console.log(`  ${title}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`);
  if (!worker) {
    if (!keepFiles) removeDatabase(databasePath);
    return run;
  }

  const sqlite = new Database(databasePath, { readonly: true });
  try {
    const count = (sql: string, ...args: number[]) => (sqlite.query(sql).get(...args) as { n: number }).n;
    const seconds = (result.measuredTo - result.measuredFrom) / 1000;
    const delivered = count("SELECT count(*) AS n FROM callbacks WHERE delivered_at BETWEEN ?1 AND ?2", result.measuredFrom, result.measuredTo);
    run.window = {
      delivered,
      seconds,
      callbacksPerSec: delivered / seconds,
      // Still pending, or delivered after the measured run: if 0, the queue ran dry too early.
      leftAfter: count("SELECT count(*) AS n FROM callbacks WHERE status = 'pending' OR delivered_at > ?1", result.measuredTo),
      dead: count("SELECT count(*) AS n FROM callbacks WHERE status = 'dead'"),
    };
  } finally {
    sqlite.close();
  }
  if (!keepFiles) removeDatabase(databasePath);
  console.log(
    `    worker delivered ${run.window.delivered} callbacks in the measured ${run.window.seconds.toFixed(1)} s: ${run.window.callbacksPerSec.toFixed(0)} callbacks/s`,
  );
  return run;
}

async function intakePhase(drain: Drain) {
  // Enough due callbacks to keep the worker busy through start-up, warm-up and the measured run,
  // with a margin: 1.5 × the drain's rate × that time, at least 30,000 (10,000 quick).
  const windowSec = warmup + duration + 2;
  const queued = Math.min(150_000, Math.max(quick ? 10_000 : 30_000, Math.ceil(drain.callbacksPerSec * windowSec * 1.5)));
  const templatePath = join(tmp, "intake-template.db");
  await freshDatabase(templatePath);
  const receiverLog = join(tmp, "receiver-intake.log");
  const receiver = await track(startReceiver({ repoDir: REPO_DIR, logPath: receiverLog })); // no secret: the drain checked signatures
  seedLeads(templatePath, queued, phoneBlocks.intakeSeed, { callbackUrl: `${receiver.url}/callback` });
  console.log(`  seeded ${queued.toLocaleString("en-US")} decided leads (callbacks due); every run starts from a copy`);

  // ABBA order (baseline, worker, worker, baseline, …), so a drift in the machine's speed does
  // not favour either side.
  const runs: IntakeRun[] = [];
  for (let round = 1; round <= rounds; round++) {
    for (const worker of round % 2 === 1 ? [false, true] : [true, false]) {
      // A run during which other processes took a share of the cores is repeated once.
      let run = await intakeRun(templatePath, worker, round, receiver);
      if (disturbed(run.cpu)) {
        console.log(`    (other processes used ${(run.cpu.other / run.cpu.seconds).toFixed(2)} cores meanwhile; repeating this run)`);
        run = await intakeRun(templatePath, worker, round, receiver);
      }
      runs.push(run);
    }
  }
  await stop(receiver);

  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const rate = (worker: boolean) => mean(runs.filter((r) => r.worker === worker).map((r) => r.scenario.result.requestsPerSec));
  const windows = runs.flatMap((r) => (r.window ? [r.window] : []));
  return {
    queued,
    rounds,
    runs,
    noWorkerReqPerSec: rate(false),
    workerReqPerSec: rate(true),
    ratio: rate(true) / rate(false),
    callbacksPerSec: mean(windows.map((w) => w.callbacksPerSec)),
    ranDry: windows.some((w) => w.leftAfter === 0),
    dead: windows.reduce((n, w) => n + w.dead, 0),
    receiver: readReceiverLog(receiverLog),
  };
}

export type Intake = Awaited<ReturnType<typeof intakePhase>>;

async function main() {
  const setting = concurrency ? `--callback-concurrency ${concurrency}` : "the server's default --callback-concurrency";
  console.log(
    `Lead Ingress callbacks benchmark${quick ? " (quick)" : ""}: ${DRAIN_COUNT.toLocaleString("en-US")} callbacks, ${setting}; intake ${duration} s after ${warmup} s warm-up, ${connections} connections`,
  );
  console.log(`database, server and receiver logs in ${tmp}`);
  console.log(
    `load average before start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  selfCheck(Object.values(phoneBlocks), PHONE_BLOCK);

  console.log("drain:");
  const drain = await drainPhase();
  console.log(`  ${drain.delivered} delivered in ${drain.drainMs} ms: ${drain.callbacksPerSec.toFixed(0)} callbacks/s`);
  console.log("intake while draining:");
  const intake = await intakePhase(drain);

  const goals = goalsOf(drain, intake);
  const warnings = callbackWarnings(drain, intake);
  printCallbackReport(drain, intake, goals, warnings);

  const resultsPath = join(REPO_DIR, ".bench", "callbacks.json");
  writeJson(resultsPath, {
    finishedAt: new Date().toISOString(),
    settings: {
      quick,
      drainCount: DRAIN_COUNT,
      duration,
      warmup,
      connections,
      rounds,
      callbackConcurrency: concurrency ?? "server default",
      bun: Bun.version,
      loadAverageAtEnd: loadavg(),
    },
    drain,
    intake,
    goals,
    warnings,
  });
  console.log(`results written to ${resultsPath}`);
}

await runBenchmark(main, cleanUp, tmp);
