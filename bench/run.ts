// `bun run bench`: measures the service as a separate process under load from a separate Node
// process (autocannon). Scenarios: the no-op baseline, prePing, postLead accept, postLead 400,
// and postLead accept again after seeding the database with 1,000,000 stored leads.
//
// Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50), BENCH_QUICK=1
// (2 s scenarios, 20,000 seeded leads), BENCH_KEEP_TMP=1 (keep the database and server log).
// Flag: --binary PATH runs a compiled binary instead of `bun src/main.ts`.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { basicAuth, invalidLead, noopBody, PHONE_SLOT, prePingBody, validLeadTemplate } from "./bodies.ts";
import { killLoad, runLoad, type LoadOptions } from "./drive.ts";
import { checkScenario, printRatios, printTable, writeJson, type Ratio, type ScenarioResult } from "./report.ts";
import { seedLeads } from "./seed.ts";
import { selfCheck } from "./self-check.ts";
import { startServer, type BenchServer } from "./server.ts";
import { PHONE_BLOCK, phoneBlocks as makePhoneBlocks, positiveInteger, runBenchmark } from "./settings.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const quick = env.BENCH_QUICK === "1";
const duration = quick ? 2 : positiveInteger(env.BENCH_DURATION, 10, 3600);
const warmup = quick ? 1 : 3;
const connections = positiveInteger(env.BENCH_CONNECTIONS, 50, 3600);
const seedCount = quick ? 20_000 : 1_000_000;
const binaryIndex = process.argv.indexOf("--binary");
const binaryArg = binaryIndex >= 0 ? process.argv[binaryIndex + 1] : undefined;
if (binaryIndex >= 0 && !binaryArg) throw new Error("--binary needs a path");
const binary = binaryArg ? resolve(binaryArg) : undefined;


const phoneBlocks = makePhoneBlocks("accept", "seed", "acceptLarge");

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-"));
const databasePath = join(tmp, "bench.db");
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

const boot = async () => (server = await startServer({ binary, databasePath, logPath, repoDir: REPO_DIR }));

async function scenario(
  key: string, title: string, expectStatus: number, path: string, body: Pick<LoadOptions, "body" | "template" | "phoneStart">,
): Promise<ScenarioResult> {
  if (!server) throw new Error("server is not running");
  const result = await runLoad({
    url: server.url, path, connections, duration, warmup,
    headers: { authorization: basicAuth("bench", "bench-password") },
    ...body,
    ...(body.template ? { slot: PHONE_SLOT, phoneCount: PHONE_BLOCK } : {}),
  });
  if (result.phonesUsed >= PHONE_BLOCK) throw new Error(`${title}: used ${result.phonesUsed} phones, more than a block holds`);
  console.log(`  ${title}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`);
  return { key, title, expectStatus, result };
}

async function main() {
  console.log(`Lead Ingress benchmark${quick ? " (quick)" : ""}: ${duration} s per scenario after ${warmup} s warm-up, ${connections} connections`);
  console.log(`server: ${binary ?? "bun src/main.ts"}; database and log in ${tmp}`);
  // Other work on this 2-core machine skews every number; the load average shows if there was any.
  console.log(`load average before start: ${loadavg().map((n) => n.toFixed(2)).join(" ")}`);
  selfCheck(Object.values(phoneBlocks), seedCount);

  await boot();
  const scenarios: ScenarioResult[] = [];
  scenarios.push(await scenario("noop", "no-op (POST /bench/noop)", 200, "/bench/noop", { body: noopBody }));
  scenarios.push(await scenario("prePing", "prePing", 200, "/v1/prePing", { body: prePingBody }));
  const accept = await scenario("postLeadAccept", "postLead accept", 200, "/v1/postLead", { template: validLeadTemplate, phoneStart: phoneBlocks.accept });
  scenarios.push(accept);
  scenarios.push(await scenario("postLead400", "postLead 400", 400, "/v1/postLead", { body: invalidLead }));

  await stopServer();
  console.log(`seeding ${seedCount.toLocaleString("en-US")} leads …`);
  const seedMs = seedLeads(databasePath, seedCount, phoneBlocks.seed);
  const dbMiB = statSync(databasePath).size / 2 ** 20;
  console.log(`  seeded in ${(seedMs / 1000).toFixed(1)} s; database is ${dbMiB.toFixed(0)} MiB`);
  await boot();
  const largeTitle = `postLead accept, ${seedCount.toLocaleString("en-US")} leads stored`;
  const acceptLarge = await scenario("postLeadAcceptLarge", largeTitle, 200, "/v1/postLead", { template: validLeadTemplate, phoneStart: phoneBlocks.acceptLarge });
  scenarios.push(acceptLarge);
  await stopServer();

  const noop = scenarios[0]!;
  const ratios: Ratio[] = [
    { title: "postLead accept / no-op", value: accept.result.requestsPerSec / noop.result.requestsPerSec, goal: 0.25 },
    { title: `postLead accept with ${quick ? seedCount.toLocaleString("en-US") : "1M"} leads / empty`, value: acceptLarge.result.requestsPerSec / accept.result.requestsPerSec, goal: 0.9 },
  ];
  const warnings = scenarios.flatMap(checkScenario);

  console.log("");
  printTable(scenarios);
  console.log("");
  printRatios(ratios);
  for (const w of warnings) console.log(`WARNING: ${w}`);

  const resultsPath = join(REPO_DIR, ".bench", "results.json");
  writeJson(resultsPath, {
    finishedAt: new Date().toISOString(),
    settings: { quick, duration, warmup, connections, binary: binary ?? null, bun: Bun.version, loadAverageAtEnd: loadavg() },
    seed: { leads: seedCount, ms: Math.round(seedMs), databaseMiB: Math.round(dbMiB) },
    scenarios,
    ratios: ratios.map((r) => ({ ...r, met: r.value >= r.goal })),
    warnings,
  });
  console.log(`results written to ${resultsPath}`);
}

await runBenchmark(main, cleanUp, logPath);
