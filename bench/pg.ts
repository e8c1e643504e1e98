// `bun run bench:pg`: the PostgreSQL backend (issue 17). On a throwaway cluster started for the run
// (scripts/pg-cluster.ts, with fsync, full_page_writes and synchronous_commit back on, so a 200 means
// on disk as it does on SQLite):
//  1. postLead accept and prePing on one SQLite instance: the reference figure of the same run;
//  2. the same on one instance on PostgreSQL, then on two instances on one database (the load split
//     between them, two load processes at once; req/s summed, p50/p99 the worse of the two);
//  3. the callback drain with three instances: DRAIN_COUNT leads are posted through one instance
//     with its worker off and no hold, then three instances with their workers on decide them and
//     deliver their callbacks to the mock receiver (its own process, answering 200 at once, checking
//     every signature). Callbacks/s from the first attempt to the last delivery, and the duplicate
//     deliveries (webhook-ids received more than once: with a receiver that never fails, each is a
//     claim race).
// Every database is fresh. The cluster, instances and load generator share this machine's cores.
//
// Environment: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50), BENCH_QUICK=1 (2 s
// scenarios, 2,000 callbacks), BENCH_PG_SETTINGS (extra server settings, e.g.
// "commit_delay=100,commit_siblings=5"), BENCH_KEEP_TMP=1 (keep the logs).
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startPgCluster, type PgCluster } from "../scripts/pg-cluster.ts";
import { basicAuth, PHONE_SLOT, prePingBody, validLead, validLeadTemplate } from "./bodies.ts";
import { killLoad, runLoad, type LoadResult } from "./drive.ts";
import { formattedPhone } from "./phones.mjs";
import { readReceiverLog, startReceiver } from "./receiver.ts";
import { checkScenario, printRatios, printTable, writeJson, type Ratio, type ScenarioResult } from "./report.ts";
import { selfCheck } from "./self-check.ts";
import { startServer, type BenchServer } from "./server.ts";
import { loadTiming, PHONE_BLOCK, pgSettings, phoneBlocks as makePhoneBlocks, runBenchmark } from "./settings.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const { quick, duration, warmup, connections } = loadTiming(env);
const DRAIN_COUNT = quick ? 2_000 : 10_000;
const DRAIN_INSTANCES = 3;
const DRAIN_TIMEOUT_MS = 180_000;
const SEED_SENDERS = 32;
const AUTH = basicAuth("bench", "bench-password");

const phoneBlocks = makePhoneBlocks("sqlite", "pgOne", "pgTwoA", "pgTwoB", "drain");

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-pg-"));
const serverLog = join(tmp, "server.log");
const running = new Set<BenchServer>();
let cluster: PgCluster | undefined;

async function cleanUp() {
  killLoad();
  await Promise.all([...running].map((server) => server.stop()));
  running.clear();
  await cluster?.stop();
  if (env.BENCH_KEEP_TMP === "1") console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));

async function boot(database: string, flags: string[] = []): Promise<BenchServer> {
  const server = await startServer({ binary: undefined, databasePath: database, logPath: serverLog, repoDir: REPO_DIR, flags });
  running.add(server);
  return server;
}
async function stop(servers: BenchServer[]) {
  await Promise.all(servers.map((server) => server.stop()));
  for (const server of servers) running.delete(server);
}

/** Split over the instances, `connections` in all; one load process per instance, all at once. */
async function load(servers: BenchServer[], path: string, body: { body: string } | { template: string; phoneStarts: number[] }): Promise<LoadResult> {
  const share = Math.max(1, Math.round(connections / servers.length));
  const results = await Promise.all(
    servers.map((server, i) =>
      runLoad({
        url: server.url,
        path,
        connections: share,
        duration,
        warmup,
        headers: { authorization: AUTH },
        ...("body" in body ? { body: body.body } : { template: body.template, slot: PHONE_SLOT, phoneStart: body.phoneStarts[i]!, phoneCount: PHONE_BLOCK }),
      }),
    ),
  );
  return combine(results);
}

/** Several simultaneous runs as one: rates and counts summed, latencies the worst. */
function combine(results: LoadResult[]): LoadResult {
  if (results.length === 1) return results[0]!;
  const sum = (pick: (r: LoadResult) => number) => results.reduce((total, r) => total + pick(r), 0);
  const statusCodes: Record<string, number> = {};
  for (const r of results) for (const [code, n] of Object.entries(r.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + n;
  return {
    requestsPerSec: sum((r) => r.requestsPerSec),
    p50Ms: Math.max(...results.map((r) => r.p50Ms)),
    p99Ms: Math.max(...results.map((r) => r.p99Ms)),
    total: sum((r) => r.total),
    non2xx: sum((r) => r.non2xx),
    statusCodes,
    errors: sum((r) => r.errors),
    timeouts: sum((r) => r.timeouts),
    durationSec: Math.max(...results.map((r) => r.durationSec)),
    phonesUsed: Math.max(...results.map((r) => r.phonesUsed)),
    phonesUsedMeasured: sum((r) => r.phonesUsedMeasured),
    measuredFrom: Math.min(...results.map((r) => r.measuredFrom)),
    measuredTo: Math.max(...results.map((r) => r.measuredTo)),
  };
}

/** postLead accept and prePing against `servers` (one database). */
async function intake(label: string, keyPrefix: string, servers: BenchServer[], phoneStarts: number[]): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  for (const [key, title, path, body] of [
    ["Accept", "postLead accept", "/v1/postLead", { template: validLeadTemplate, phoneStarts }],
    ["PrePing", "prePing", "/v1/prePing", { body: prePingBody }],
  ] as const) {
    const result = await load(servers, path, body);
    if (result.phonesUsed >= PHONE_BLOCK) throw new Error(`${title}: used ${result.phonesUsed} phones, more than a block holds`);
    console.log(`  ${label}, ${title}: ${result.requestsPerSec.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms`);
    results.push({ key: `${keyPrefix}${key}`, title: `${label}: ${title}`, expectStatus: 200, result });
  }
  return results;
}

/**
 * One instance creates the 'bench' vendor; the others know it from their next vendor reload (≤ 1 s).
 * Until then they answer 401: wait, probing with an empty postLead (400 once authenticated).
 */
async function vendorKnown(servers: BenchServer[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  const authenticated = async (server: BenchServer) =>
    (await fetch(`${server.url}/v1/postLead`, { method: "POST", headers: { authorization: AUTH, "content-type": "application/json" }, body: "{}" })).status ===
    400;
  while (!(await Promise.all(servers.map(authenticated))).every(Boolean)) {
    if (Date.now() > deadline) throw new Error("an instance did not know the bench vendor within 10 s");
    await Bun.sleep(250);
  }
}

async function withServers(count: number, database: string, measure: (servers: BenchServer[]) => Promise<ScenarioResult[]>) {
  const servers = await Promise.all(Array.from({ length: count }, () => boot(database)));
  try {
    await vendorKnown(servers);
    return await measure(servers);
  } finally {
    await stop(servers);
  }
}

/** Posts `count` leads with their callback at `callbackUrl`, SEED_SENDERS at a time; all must be 200. */
async function postLeads(serverUrl: string, count: number, phoneStart: number, callbackUrl: string): Promise<void> {
  let next = 0;
  const sender = async () => {
    for (let i = next++; i < count; i = next++) {
      const response = await fetch(`${serverUrl}/v1/postLead`, {
        method: "POST",
        headers: { authorization: AUTH, "content-type": "application/json" },
        body: JSON.stringify({ ...validLead(formattedPhone(phoneStart + i)), call_back_url: callbackUrl }),
      });
      if (response.status !== 200) throw new Error(`seeding the drain: postLead answered ${response.status}: ${await response.text()}`);
    }
  };
  await Promise.all(Array.from({ length: SEED_SENDERS }, sender));
}

async function drain(pg: PgCluster) {
  const url = await pg.createDatabase("drain");
  const sql = new SQL({ url, max: 1 });
  const receiverLog = join(tmp, "receiver.log");
  try {
    const instanceFlags = ["--hold-period", "0ms", "--allow-private-callbacks", "--worker-poll-interval", "50ms"];
    const seeder = await boot(url, [...instanceFlags, "--worker", "false"]);
    const [{ signing_secret: secret }] = await sql`select signing_secret from vendors where name = 'bench'`;
    const receiver = await startReceiver({ repoDir: REPO_DIR, logPath: receiverLog, secret });
    const seededAt = Date.now();
    await postLeads(seeder.url, DRAIN_COUNT, phoneBlocks.drain, `${receiver.url}/callback`);
    console.log(
      `  posted ${DRAIN_COUNT.toLocaleString("en-US")} leads in ${((Date.now() - seededAt) / 1000).toFixed(1)} s; starting ${DRAIN_INSTANCES} instances with their workers`,
    );
    await stop([seeder]);

    const instances = await Promise.all(Array.from({ length: DRAIN_INSTANCES }, () => boot(url, [...instanceFlags, "--worker", "true"])));
    const settled = async () => {
      const [row] =
        await sql`select count(*) filter (where status = 'delivered')::int as delivered, count(*) filter (where status = 'dead')::int as dead from callbacks`;
      return row as { delivered: number; dead: number };
    };
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    let counts = await settled();
    while (counts.delivered + counts.dead < DRAIN_COUNT && Date.now() < deadline) {
      await Bun.sleep(100);
      counts = await settled();
    }
    await stop(instances);
    await receiver.stop();
    if (counts.delivered + counts.dead < DRAIN_COUNT) throw new Error(`drain: only ${JSON.stringify(counts)} of ${DRAIN_COUNT} after ${DRAIN_TIMEOUT_MS} ms`);

    const [span] =
      await sql`select (select min(started_at) from callback_attempts)::float8 as first, (select max(delivered_at) from callbacks)::float8 as last, (select count(*) from callback_attempts)::int as attempts`;
    const drainMs = Number(span.last) - Number(span.first);
    const received = readReceiverLog(receiverLog);
    const result = {
      callbacks: DRAIN_COUNT,
      instances: DRAIN_INSTANCES,
      ...counts,
      attempts: span.attempts as number,
      drainMs,
      callbacksPerSec: counts.delivered / (drainMs / 1000),
      received: received.received,
      duplicateDeliveries: received.received - received.distinctIds,
      signaturesValid: received.signaturesValid,
      non200: received.non200,
    };
    console.log(
      `  drain: ${result.delivered} delivered (${result.dead} dead) in ${(drainMs / 1000).toFixed(1)} s: ${result.callbacksPerSec.toFixed(0)} callbacks/s; ${result.duplicateDeliveries} duplicate deliveries`,
    );
    return result;
  } finally {
    await sql.close();
  }
}

async function main() {
  console.log(`Lead Ingress PostgreSQL benchmark${quick ? " (quick)" : ""}: ${duration} s per scenario after ${warmup} s warm-up, ${connections} connections`);
  console.log(
    `load average before start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  selfCheck(Object.values(phoneBlocks), DRAIN_COUNT);
  const settings = pgSettings(env);
  cluster = await startPgCluster({ settings });
  console.log(
    `PostgreSQL: ${cluster.binaries}, ${Object.entries(settings)
      .map(([k, v]) => `${k}=${v}`)
      .join(" ")}; logs in ${tmp}`,
  );
  const pg = cluster;

  const sqlite = await withServers(1, join(tmp, "reference.db"), (servers) => intake("SQLite, 1 instance", "sqlite", servers, [phoneBlocks.sqlite]));
  const one = await withServers(1, await pg.createDatabase("one"), (servers) => intake("PostgreSQL, 1 instance", "pgOne", servers, [phoneBlocks.pgOne]));
  const two = await withServers(2, await pg.createDatabase("two"), (servers) =>
    intake("PostgreSQL, 2 instances", "pgTwo", servers, [phoneBlocks.pgTwoA, phoneBlocks.pgTwoB]),
  );
  const drained = await drain(pg);

  const scenarios = [...sqlite, ...one, ...two];
  const rps = (key: string) => scenarios.find((s) => s.key === key)!.result.requestsPerSec;
  const ratios: Ratio[] = [
    { title: "postLead accept, PostgreSQL 1 instance / SQLite", goal: 0.5, value: rps("pgOneAccept") / rps("sqliteAccept") },
    { title: "prePing, PostgreSQL 1 instance / SQLite", goal: 0.5, value: rps("pgOnePrePing") / rps("sqlitePrePing") },
    { title: `callback drain, ${DRAIN_INSTANCES} instances, callbacks/s / 2,000`, goal: 1, value: drained.callbacksPerSec / 2_000 },
  ];
  const warnings = [
    ...scenarios.flatMap(checkScenario),
    ...(drained.duplicateDeliveries > 0 ? [`drain: ${drained.duplicateDeliveries} duplicate deliveries`] : []),
  ];

  console.log("");
  printTable(scenarios);
  console.log("");
  printRatios(ratios);
  console.log(
    `2 instances / 1 on PostgreSQL: postLead accept ${(rps("pgTwoAccept") / rps("pgOneAccept")).toFixed(2)}, prePing ${(rps("pgTwoPrePing") / rps("pgOnePrePing")).toFixed(2)}`,
  );
  for (const warning of warnings) console.log(`WARNING: ${warning}`);

  const resultsPath = join(REPO_DIR, ".bench", "pg-results.json");
  writeJson(resultsPath, {
    finishedAt: new Date().toISOString(),
    settings: { quick, duration, warmup, connections, postgres: cluster.binaries, postgresSettings: settings, bun: Bun.version, loadAverageAtEnd: loadavg() },
    scenarios,
    drain: drained,
    ratios: ratios.map((r) => ({ ...r, met: r.value >= r.goal })),
    warnings,
  });
  console.log(`results written to ${resultsPath}`);
}

await runBenchmark(main, cleanUp, serverLog);
