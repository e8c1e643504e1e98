// `bun bench/portal-load.ts`: the vendor portal under load (issue 29): do vendors reading their portal
// pages slow intake down? The goal: 50 vendors' sessions reading pages while intake runs at 2,000
// leads/s keep intake's p99 within 10 % of the same run without them.
//
// One server (server.ts, SQLite, the worker on with the bench's 1 h hold: intake only) and 50
// vendors, each with a few hundred leads and a few refused requests of its own and a portal session
// (signed in with its password). Then rounds, alternating which goes first: intake open-loop at a
// fixed rate (open-loop.ts, its own process; latency from each request's intended send time) for
// the bench vendor, once without and once with the 50 sessions each loading a page (overview,
// leads, one of its leads, callbacks, caps, in turn) then pausing BENCH_THINK_MS, in this process.
// The bench vendor is one of the 50: its overview counts the leads intake is adding.
// Prints each run's intake p50 / p99, the server's cores and its main thread's (intake's: the
// portal has its own), other processes' cores (other people's work on the machine), the pages' own
// latency, then the medians and the ratio with / without of intake's p99.
//
// Environment: BENCH_RATE (leads/s, 2000), BENCH_ROUNDS (pairs, 3), BENCH_DURATION (s measured, 10,
// after 3 s warm-up; BENCH_QUICK=1: 2 s after 1 s, one round), BENCH_SESSIONS (50), BENCH_THINK_MS
// (pause after each page, 1000), BENCH_SEED_LEADS (leads per vendor before the rounds, 200),
// BENCH_PORTAL_WARMUP (s the sessions read pages before the first round, unmeasured, 10: the first
// pages a server ever renders compile its page code and fill its caches, which is not steady state),
// BENCH_KEEP_TMP=1.
import { mkdtempSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createVendor } from "../src/auth/vendors.ts";
import { openDatabase } from "../src/db/client.ts";
import { storeOn } from "../src/store/sqlite.ts";
import { basicAuth, exampleCallbackBase, invalidLead, PHONE_SLOT, validLead, validLeadTemplate } from "./bodies.ts";
import { busySeconds, cpuSeconds, machineSample, ownAndChildrenCpuSeconds } from "./cpu.ts";
import { killLoad, runOpenLoopLoad } from "./drive.ts";
import { percentile, type OpenLoopResult } from "./open-loop.ts";
import { formattedPhone } from "./phones.mjs";
import { startServer, type BenchServer } from "./server.ts";
import { discardTmp, loadTiming, phoneBlocks, positiveInteger, runBenchmark } from "./settings.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const { quick, duration, warmup } = loadTiming(env);
const rate = positiveInteger(env.BENCH_RATE, 2000, 100_000);
const rounds = quick ? 1 : positiveInteger(env.BENCH_ROUNDS, 3, 100);
const sessionCount = positiveInteger(env.BENCH_SESSIONS, 50, 1000);
const thinkMs = Number(env.BENCH_THINK_MS ?? 1000);
const portalWarmupSeconds = quick ? 1 : positiveInteger(env.BENCH_PORTAL_WARMUP, 10, 3600);
const seedLeads = positiveInteger(env.BENCH_SEED_LEADS, 200, 100_000);
const GOAL_RATIO = 1.1;
const CONNECTIONS = 256;
const BENCH_VENDOR = { name: "bench", password: "bench-password" };
const PAGES = ["/portal/overview", "/portal/leads", "/portal/leads/{lead}", "/portal/callbacks", "/portal/caps"];

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-portal-"));
const databasePath = join(tmp, "portal.db");
const logPath = join(tmp, "server.log");
let server: BenchServer | undefined;

interface Session {
  vendor: { name: string; password: string };
  cookie: string;
  leadId: string;
}

const vendorNames = Array.from({ length: sessionCount - 1 }, (_, i) => `portal-vendor-${i + 1}`);
const vendors = [BENCH_VENDOR, ...vendorNames.map((name) => ({ name, password: `${name}-password` }))];

/** The 49 other vendors, written while the server is stopped (as bench/console.ts). */
async function addVendors(): Promise<void> {
  const database = openDatabase(databasePath, { migrate: false });
  try {
    const store = storeOn(database.db);
    for (const vendor of vendors.slice(1)) await createVendor(store, vendor.name, vendor.password);
  } finally {
    database.sqlite.close();
  }
}

/** Runs `task` on every item, `width` at a time. */
async function eachLimited<T>(items: T[], width: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await task(items[next++]!);
    }),
  );
}

/** A vendor's leads and refused requests before the rounds; the id of its first lead. */
async function seedVendor(vendor: { name: string; password: string }, phoneStart: number): Promise<string> {
  const headers = { authorization: basicAuth(vendor.name, vendor.password), "content-type": "application/json" };
  const postLead = (body: string) =>
    fetch(`${server!.url}/v1/postLead`, { method: "POST", headers, body }).then(async (r) => (await r.json()) as { lead_id?: string });
  const first = await postLead(JSON.stringify(validLead(formattedPhone(phoneStart))));
  if (!first.lead_id) throw new Error(`seeding ${vendor.name}: ${JSON.stringify(first)}`);
  for (let i = 1; i < seedLeads; i++) await postLead(JSON.stringify(validLead(formattedPhone(phoneStart + i))));
  for (let i = 0; i < 5; i++) await postLead(invalidLead);
  return first.lead_id;
}

async function signIn(vendor: { name: string; password: string }): Promise<string> {
  const answer = await fetch(`${server!.url}/portal/login`, {
    method: "POST",
    body: new URLSearchParams(vendor).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
    redirect: "manual",
  });
  if (answer.status !== 303) throw new Error(`${vendor.name}: portal sign-in answered ${answer.status}`);
  return answer.headers.get("set-cookie")!.split(";")[0]!;
}

/** The 50 sessions reading pages until stopped: each page's time, by page, and any answer but 200. */
function startReaders(sessions: Session[]) {
  const times = new Map(PAGES.map((page) => [page, [] as number[]]));
  const failures: string[] = [];
  let running = true;
  const read = async (session: Session, offset: number) => {
    await Bun.sleep(Math.random() * thinkMs); // spread over the pause, not all at once
    for (let page = offset; running; page++) {
      const name = PAGES[page % PAGES.length]!;
      const path = name.replace("{lead}", session.leadId);
      const started = performance.now();
      const answer = await fetch(`${server!.url}${path}`, { headers: { cookie: session.cookie } });
      await answer.arrayBuffer();
      times.get(name)!.push(performance.now() - started);
      if (answer.status !== 200) failures.push(`${path}: ${answer.status}`);
      if (thinkMs > 0) await Bun.sleep(thinkMs);
    }
  };
  const started = performance.now();
  const loops = sessions.map((session, i) => read(session, i));
  return async () => {
    running = false;
    await Promise.all(loops);
    const all = [...times.values()].flat();
    const p = (values: number[], q: number) => percentile(Float64Array.from(values).sort(), q);
    return {
      pages: all.length,
      perSec: all.length / ((performance.now() - started) / 1000),
      p50: p(all, 0.5),
      p99: p(all, 0.99),
      byPage: [...times].map(([name, values]) => `${name.replace("/portal/", "")} ${ms(p(values, 0.5))}`).join(", "),
      failures,
    };
  };
}

interface Run {
  withPortal: boolean;
  intake: OpenLoopResult;
  serverCores: number;
  /** The server's main thread, the one that answers intake (the portal's pages run on a thread of their own). */
  intakeThreadCores: number;
  /** Other processes on the machine (other people's work): a run they disturbed says so. */
  otherCores: number;
  load: number;
}

async function intakeRun(withPortal: boolean, sessions: Session[], phoneStart: number): Promise<Run> {
  const stopReaders = withPortal ? startReaders(sessions) : null;
  const cpu = () => ({
    server: cpuSeconds(server!.pid),
    intakeThread: cpuSeconds(server!.pid, server!.pid),
    own: ownAndChildrenCpuSeconds(),
    machine: machineSample(),
  });
  const before = cpu();
  const startedAt = performance.now();
  const intake = await runOpenLoopLoad({
    url: server!.url,
    path: "/v1/postLead",
    headers: { authorization: basicAuth(BENCH_VENDOR.name, BENCH_VENDOR.password) },
    rate,
    connections: CONNECTIONS,
    duration,
    warmup,
    workload: { template: validLeadTemplate, slot: PHONE_SLOT, invalidBody: invalidLead, phoneStart, callbackBase: exampleCallbackBase },
  });
  const after = cpu();
  const seconds = (performance.now() - startedAt) / 1000;
  const serverCores = (after.server - before.server) / seconds;
  const intakeThreadCores = (after.intakeThread - before.intakeThread) / seconds;
  const otherCores = (busySeconds(before.machine, after.machine).processes - (after.server - before.server) - (after.own - before.own)) / seconds;
  const pages = stopReaders ? await stopReaders() : null;
  const run = { withPortal, intake, serverCores, intakeThreadCores, otherCores, load: loadavg()[0]! };
  const unexpected = intake.unexpected + intake.errors + intake.unanswered;
  console.log(
    `  ${withPortal ? "with the portal   " : "without the portal"}: intake ${intake.answeredPerSec.toFixed(0)}/s p50 ${ms(intake.p50Ms)} p99 ${ms(intake.p99Ms)} ms` +
      `${unexpected > 0 ? ` (${unexpected} unexpected: ${JSON.stringify(intake.statuses)})` : ""}; server ${serverCores.toFixed(2)} cores (intake's thread ${intakeThreadCores.toFixed(2)}); other processes ${otherCores.toFixed(2)} cores; load ${run.load.toFixed(2)}` +
      (pages
        ? `; pages ${pages.pages} (${pages.perSec.toFixed(1)}/s) p50 ${ms(pages.p50)} p99 ${ms(pages.p99)} ms (p50 by page: ${pages.byPage})${pages.failures.length > 0 ? `, FAILED ${pages.failures.length}: ${pages.failures[0]}` : ""}`
        : ""),
  );
  return run;
}

const ms = (n: number) => n.toFixed(2);
const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function main(): Promise<void> {
  console.log(
    `portal under load: intake ${rate} leads/s, ${duration} s after ${warmup} s warm-up, ${rounds} pairs of runs; ${sessionCount} portal sessions, ${thinkMs} ms between pages; load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  const serve = () => startServer({ binary: undefined, databasePath, logPath, repoDir: REPO_DIR });
  server = await serve(); // migrates and adds the bench vendor
  await server.stop();
  await addVendors();
  server = await serve();
  const blocks = phoneBlocks("seed", ...Array.from({ length: rounds * 2 }, (_, i) => `run${i}`));
  const seeded = Date.now();
  const leadIds = new Map<string, string>();
  await eachLimited(vendors, 10, async (vendor) => {
    leadIds.set(vendor.name, await seedVendor(vendor, blocks.seed! + vendors.indexOf(vendor) * seedLeads));
  });
  const sessions = await Promise.all(vendors.map(async (vendor) => ({ vendor, cookie: await signIn(vendor), leadId: leadIds.get(vendor.name)! })));
  console.log(
    `${vendors.length} vendors seeded with ${seedLeads} leads each and signed in, in ${((Date.now() - seeded) / 1000).toFixed(0)} s; database and log in ${tmp}`,
  );

  const warming = startReaders(sessions);
  await Bun.sleep(portalWarmupSeconds * 1000);
  const warmed = await warming();
  console.log(`portal warm-up: ${warmed.pages} pages in ${portalWarmupSeconds} s, unmeasured`);
  const runs: Run[] = [];
  for (let round = 0; round < rounds; round++) {
    console.log(`round ${round + 1}`);
    for (const withPortal of round % 2 === 0 ? [false, true] : [true, false]) runs.push(await intakeRun(withPortal, sessions, blocks[`run${runs.length}`]!));
  }
  const of = (withPortal: boolean, figure: (run: Run) => number) => median(runs.filter((run) => run.withPortal === withPortal).map(figure));
  const p99 = (withPortal: boolean) => of(withPortal, (run) => run.intake.p99Ms);
  const p50 = (withPortal: boolean) => of(withPortal, (run) => run.intake.p50Ms);
  const ratio = p99(true) / p99(false);
  console.log(
    `RESULT intake at ${rate}/s: p50 without ${ms(p50(false))} with ${ms(p50(true))} ms; p99 without ${ms(p99(false))} with ${ms(p99(true))} ms (medians of ${rounds}); ` +
      `intake's thread without ${of(false, (run) => run.intakeThreadCores).toFixed(2)} with ${of(true, (run) => run.intakeThreadCores).toFixed(2)} cores; ` +
      `p99 with / without ${ratio.toFixed(3)} (goal ≤ ${GOAL_RATIO}: ${ratio <= GOAL_RATIO ? "met" : "NOT MET"}); load average at the end ${loadavg()
        .map((n) => n.toFixed(2))
        .join(" ")}`,
  );
}

await runBenchmark(
  main,
  async () => {
    killLoad();
    await server?.stop();
    discardTmp(tmp);
  },
  logPath,
);
