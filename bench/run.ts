// `bun run bench`: measures the service as a separate process under load from a separate Node
// process (autocannon). Scenarios: the no-op baseline, prePing, postLead accept, postLead 400,
// and postLead accept again on a database holding 1,000,000 stored leads.
//
// This VM's speed drifts by tens of percent from one minute to the next, so each ratio is measured
// in BENCH_ROUNDS rounds (5 by default). A round runs its pair back to back, the no-op and the
// accept path on a fresh empty database, then the accept path on a fresh copy of the seeded one;
// the verdict is on the median of the rounds' ratios. The disk-heavy chores of a round (deleting the
// last round's databases, copying the seeded one) come before its no-op run, which writes nothing
// to the database, so neither accept run follows them directly: the accept path waits on WAL fsyncs.
//
// Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50), BENCH_ROUNDS
// (default 5), BENCH_QUICK=1 (2 s scenarios, 20,000 seeded leads), BENCH_KEEP_TMP=1 (keep the
// databases and server log); the accept path's workload shares (settings.ts: workloadShares).
// Flag: --binary PATH runs a compiled binary instead of `bun src/main.ts`.
import { copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { basicAuth, exampleCallbackBase, invalidLead, noopBody, PHONE_SLOT, prePingBody, workloadLeadTemplate } from "./bodies.ts";
import { killLoad, runLoad, type LoadOptions } from "./drive.ts";
import { checkScenario, printRatios, printTable, writeJson, type Ratio, type ScenarioResult } from "./report.ts";
import { flushToDisk } from "./disk.ts";
import { seedLeads } from "./seed.ts";
import { selfCheck } from "./self-check.ts";
import { startServer, type BenchServer } from "./server.ts";
import { loadTiming, PHONE_BLOCK, phoneBlocks as makePhoneBlocks, positiveInteger, runBenchmark, workloadShares } from "./settings.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const { quick, duration, warmup, connections } = loadTiming(env);
const seedCount = quick ? 20_000 : 1_000_000;
const rounds = positiveInteger(env.BENCH_ROUNDS, 5, 100);
const binaryIndex = process.argv.indexOf("--binary");
const binaryArg = binaryIndex >= 0 ? process.argv[binaryIndex + 1] : undefined;
if (binaryIndex >= 0 && !binaryArg) throw new Error("--binary needs a path");
const binary = binaryArg ? resolve(binaryArg) : undefined;

const phoneBlocks = makePhoneBlocks("accept", "seed", "acceptLarge");
const shares = workloadShares(env);

/** The accept path's bodies: the realistic workload (random numbers; duplicates and invalid leads if asked). */
const acceptWorkload = (phoneStart: number): Pick<LoadOptions, "workload"> => ({
  workload: {
    template: workloadLeadTemplate,
    slot: PHONE_SLOT,
    invalidBody: invalidLead,
    phoneStart,
    callbackBase: exampleCallbackBase,
    shares,
    seed: phoneStart,
  },
});

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-"));
const seededPath = join(tmp, "seeded.db");
const logPath = join(tmp, "server.log");
let server: BenchServer | undefined;

async function stopServer() {
  await server?.stop();
  server = undefined;
}

async function cleanUp() {
  killLoad();
  await stopServer();
  if (env.BENCH_KEEP_TMP === "1") console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}

for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
}

const boot = async (databasePath: string) => (server = await startServer({ binary, databasePath, logPath, repoDir: REPO_DIR }));

/** A database for one round: a new empty file, or a fresh copy of the seeded one. */
function roundDatabase(round: number, kind: "empty" | "large"): string {
  const path = join(tmp, `round-${round}-${kind}.db`);
  if (kind === "large") {
    copyFileSync(seededPath, path);
    flushToDisk(path);
  }
  return path;
}

/** The last round's databases are not needed any more (a large copy is over a gigabyte). */
function dropDatabases(paths: string[]): void {
  if (env.BENCH_KEEP_TMP === "1") return;
  for (const path of paths) for (const suffix of ["", "-wal", "-shm"]) rmSync(path + suffix, { force: true });
}

/** Runs one server on `databasePath` for `measure`, then stops it. */
async function withServer<T>(databasePath: string, measure: () => Promise<T>): Promise<T> {
  await boot(databasePath);
  const result = await measure();
  await stopServer();
  return result;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

const ratio = (title: string, goal: number, rounds: number[]): Ratio => ({ title, goal, rounds, value: median(rounds) });

async function scenario(key: string, title: string, expectStatus: number, path: string, body: Pick<LoadOptions, "body" | "workload">): Promise<ScenarioResult> {
  if (!server) throw new Error("server is not running");
  const result = await runLoad({
    url: server.url,
    path,
    connections,
    duration,
    warmup,
    headers: { authorization: basicAuth("bench", "bench-password") },
    ...body,
  });
  if (result.phonesUsed >= PHONE_BLOCK) throw new Error(`${title}: used ${result.phonesUsed} phones, more than a block holds`);
  console.log(`  ${title}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`);
  // With duplicates or invalid leads in the workload, only the rest is answered 200.
  return { key, title, expectStatus, result, ...(body.workload ? { expectShare: 1 - shares.duplicate - shares.invalid } : {}) };
}

interface Round {
  noop: ScenarioResult;
  accept: ScenarioResult;
  acceptLarge: ScenarioResult;
}

async function main() {
  console.log(
    `Lead Ingress benchmark${quick ? " (quick)" : ""}: ${rounds} rounds; ${duration} s per scenario after ${warmup} s warm-up, ${connections} connections`,
  );
  console.log(`server: ${binary ?? "bun src/main.ts"}; databases and log in ${tmp}`);
  // Other work on this 2-core machine skews every number; the load average shows if there was any.
  console.log(
    `load average before start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  selfCheck(Object.values(phoneBlocks), seedCount);

  // The seeded database is made first (the server creates its schema and vendor), then copied
  // fresh into every round, so each large run starts from the same million leads.
  await boot(seededPath);
  await stopServer();
  console.log(`seeding ${seedCount.toLocaleString("en-US")} leads …`);
  const seedMs = seedLeads(seededPath, seedCount, phoneBlocks.seed);
  const dbMiB = statSync(seededPath).size / 2 ** 20;
  console.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s; database is ${dbMiB.toFixed(0)} MiB`);

  const largeTitle = `postLead accept, ${seedCount.toLocaleString("en-US")} leads stored`;
  const once: ScenarioResult[] = [];
  const results: Round[] = [];
  let lastRound: string[] = [];
  for (let round = 1; round <= rounds; round++) {
    console.log(`round ${round} of ${rounds}`);
    dropDatabases(lastRound);
    const [emptyPath, largePath] = [roundDatabase(round, "empty"), roundDatabase(round, "large")];
    lastRound = [emptyPath, largePath];
    const [noop, accept] = await withServer(emptyPath, async () => {
      const noop = await scenario("noop", "no-op (POST /bench/noop)", 200, "/bench/noop", { body: noopBody });
      if (round === 1) once.push(await scenario("prePing", "prePing", 200, "/v1/prePing", { body: prePingBody }));
      const accept = await scenario("postLeadAccept", "postLead accept", 200, "/v1/postLead", acceptWorkload(phoneBlocks.accept));
      if (round === 1) once.push(await scenario("postLead400", "postLead 400", 400, "/v1/postLead", { body: invalidLead }));
      return [noop, accept] as const;
    });
    const acceptLarge = await withServer(largePath, () =>
      scenario("postLeadAcceptLarge", largeTitle, 200, "/v1/postLead", acceptWorkload(phoneBlocks.acceptLarge)),
    );
    results.push({ noop, accept, acceptLarge });
  }

  const ratios = [
    ratio(
      "postLead accept / no-op",
      0.25,
      results.map((r) => rps(r.accept) / rps(r.noop)),
    ),
    ratio(
      `postLead accept with ${quick ? seedCount.toLocaleString("en-US") : "1M"} leads / empty`,
      0.9,
      results.map((r) => rps(r.acceptLarge) / rps(r.accept)),
    ),
  ];
  const all = [...results.flatMap((r) => [r.noop, r.accept, r.acceptLarge]), ...once];
  const warnings = all.flatMap(checkScenario);

  console.log("");
  printTable(tableRows(results, once));
  console.log("");
  printRatios(ratios);
  for (const w of warnings) console.log(`WARNING: ${w}`);

  const resultsPath = join(REPO_DIR, ".bench", "results.json");
  writeJson(resultsPath, {
    finishedAt: new Date().toISOString(),
    settings: { quick, rounds, duration, warmup, connections, binary: binary ?? null, bun: Bun.version, loadAverageAtEnd: loadavg() },
    seed: { leads: seedCount, ms: Math.round(seedMs), databaseMiB: Math.round(dbMiB) },
    rounds: results,
    scenarios: once,
    ratios: ratios.map((r) => ({ ...r, met: r.value >= r.goal })),
    warnings,
  });
  console.log(`results written to ${resultsPath}`);
}

const rps = (s: ScenarioResult) => s.result.requestsPerSec;

/** The table: no-op and accept of every round ("… (round 2)"), the once-only scenarios, then the large runs. */
function tableRows(results: Round[], once: ScenarioResult[]): ScenarioResult[] {
  const label = (s: ScenarioResult, round: number) => (results.length === 1 ? s : { ...s, title: `${s.title} (round ${round})` });
  return [...results.flatMap((r, i) => [label(r.noop, i + 1), label(r.accept, i + 1)]), ...once, ...results.map((r, i) => label(r.acceptLarge, i + 1))];
}

await runBenchmark(main, cleanUp, logPath);
