// The hold jobs' asking (src/hold/asking.ts), in process on an in-memory SQLite store, with fakes for
// the providers: `bun bench/hold-asking.ts [leads] [ms]`.
// 1. Backlog: the TrustedForm job under its worker loop (poll 1 s, woken as the worker wires it)
//    asks `leads` leads, each answer after `ms` ms, 16 at once: leads/s (ideal 16000 / ms) and CPU
//    per lead (the job's reads, claims and stores). A pass that never waits must not lose throughput.
// 2. Stall: one pass of two final-stage checks, one answering after 1.5 s, the other at once: how long
//    until the fast check's answer is stored (the pass used to last as long as the slow request).
// Runs against whichever src/ sits beside it (an export of main's src/ for the A/B).
import { createCertificateJob } from "../src/certificates/job.ts";
import { evidenceFromAnswer } from "../src/certificates/index.ts";
import { createFinalChecksJob } from "../src/checks/final-job.ts";
import type { CheckRunner } from "../src/checks/run.ts";
import { openDatabase } from "../src/db/client.ts";
import { createLogger } from "../src/log/index.ts";
import { compilePolicy } from "../src/policy/index.ts";
import { sqliteTables, storeOn } from "../src/store/sqlite.ts";
import { startLoop, type Loop } from "../src/worker/loop.ts";
import { leadFields, vendorRow } from "../test/helpers/tables.ts";

const LEADS = Number(process.argv[2] ?? 2000);
const ANSWER_MS = Number(process.argv[3] ?? 20);
const log = createLogger("silent");
const verified = evidenceFromAnswer({ kind: "http", status: 200, truncated: false, body: JSON.stringify({ outcome: "success" }) });

function database(leads: number, certificate: boolean) {
  const { db } = openDatabase(":memory:");
  const t = sqliteTables(db);
  t.vendors.insert(vendorRow("vendor-a"));
  const now = Date.now();
  for (let n = 0; n < leads; n++) {
    const fields = {
      ...leadFields(`+1212${String(n).padStart(7, "0")}`),
      ...(certificate ? { certificateUrl: `https://cert.trustedform.com/${String(n).padStart(40, "a")}` } : {}),
    };
    t.leads.insertPending(fields, { id: Bun.randomUUIDv7(), vendorId: "vendor-a", rawRequest: "{}", createdAt: now, decideAfter: now + 600_000 });
  }
  return { db, store: storeOn(db) as never };
}

async function backlog(): Promise<void> {
  const { store } = database(LEADS, true);
  let answered = 0;
  let passes = 0;
  let loop: Loop | undefined;
  let done: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));
  const job = createCertificateJob({
    store,
    clock: Date.now,
    log,
    verify: async () => (await Bun.sleep(ANSWER_MS), verified),
    concurrency: 16,
    timeoutMs: 5_000,
    onRoom: () => loop?.wake(),
    onAnswer: () => ++answered === LEADS && done(),
  } as Parameters<typeof createCertificateJob>[0]);
  const cpu = process.cpuUsage();
  const started = performance.now();
  loop = startLoop(async () => (passes++, (await job.runOnce()) > 0), { pollIntervalMs: 1_000, onError: (error) => console.error(error) });
  await finished;
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  await loop.stop(1_000);
  console.log(
    `backlog: ${LEADS} leads, ${ANSWER_MS} ms each, 16 at once: ${(LEADS / seconds).toFixed(0)} leads/s (ideal ${(16_000 / ANSWER_MS).toFixed(0)}), ` +
      `${((used.user + used.system) / LEADS).toFixed(0)} µs CPU a lead, ${passes} passes`,
  );
}

async function stall(): Promise<void> {
  const { db, store } = database(1, false);
  const policy = compilePolicy({
    checks: [
      { name: "slow", stage: "final", url: "https://slow.example.com/", timeout_ms: 5_000 },
      { name: "fast", stage: "final", url: "https://fast.example.com/" },
    ],
  });
  const runner: CheckRunner = {
    async run(checks) {
      const check = checks[0]!;
      if (check.name === "slow") await Bun.sleep(1_500);
      return [{ check, answer: { outcome: "pass", reason: "clean" }, source: "request" as const, durationMs: 0 }];
    },
    forget() {},
  };
  const job = createFinalChecksJob({ store, clock: Date.now, log, runner, policy: { current: () => policy }, concurrency: 4, onResult: () => {} });
  const fastStored = () => db.$client.query("SELECT 1 FROM lead_findings WHERE name = 'fast' AND outcome = 'pass'").get() !== null;
  const started = performance.now();
  const pass = job.runOnce().then(() => performance.now() - started);
  while (!fastStored()) await Bun.sleep(1);
  const fast = performance.now() - started;
  console.log(`stall: the fast check's answer stored after ${fast.toFixed(0)} ms; the pass took ${(await pass).toFixed(0)} ms`);
  await Bun.sleep(1_600);
}

await backlog();
await stall();
