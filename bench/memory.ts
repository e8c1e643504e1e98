// `bun run bench:memory`: the service's resident memory under the realistic workload (issue 20
// item 4). Starts the real server (the worker on, a short hold, callbacks to the mock receiver with
// a failing share that retries) on a temporary database, sends `--requests` requests at a fixed
// `--rate` (open-loop: postLead with duplicates and invalid bodies, and a share of prePing), then
// `--minutes` more of the same load (the soak). It reads the server's memory from outside, in
// /proc/PID/status every few seconds (the product has no debug endpoint for it), and prints RSS
// idle, after a tenth, half and all of the requests, each soak minute, and the soak's slope.
//
//   bun run bench:memory [--requests 1000000] [--minutes 5] [--rate 2000] [--binary dist/lead-ingress]
//
// --binary runs the compiled binary (`bun run build`), as the product ships, instead of
// `bun src/main.ts`, whose transpiler and sources keep ~14 MiB more at idle.
// Environment: the workload's shares (settings.ts: workloadShares; duplicates and invalid bodies
// default to 2% each here), BENCH_KEEP_TMP=1. Results also go to .bench/memory.json.
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { basicAuth, invalidLead, PHONE_SLOT, prePingTemplate, workloadLeadTemplate } from "./bodies.ts";
import { BenchProcesses, runOpenLoopLoad } from "./drive.ts";
import type { OpenLoopResult } from "./open-loop.ts";
import { startWorkloadReceivers } from "./receiver.ts";
import { writeJson } from "./report.ts";
import { startServer } from "./server.ts";
import { phoneBlocks, positiveInteger, runBenchmark, workloadShares, discardTmp } from "./settings.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const env = process.env;
const { values: args } = parseArgs({
  options: { requests: { type: "string" }, minutes: { type: "string" }, rate: { type: "string" }, binary: { type: "string" } },
});
const binary = args.binary ? resolve(args.binary) : undefined;
const requests = positiveInteger(args.requests, 1_000_000, 20_000_000); // a half is one segment, inside a phone block
const soakMinutes = args.minutes === "0" ? 0 : positiveInteger(args.minutes, 5, 24 * 60);
const rate = positiveInteger(args.rate, 2_000, 100_000);
const shares = workloadShares({ BENCH_DUPLICATE_SHARE: "0.02", BENCH_INVALID_SHARE: "0.02", ...env });
/** prePing's share of the requests; the rest are postLead. */
const PRE_PING_SHARE = 0.1;
/** The worker decides a lead 10 s after intake, so deciding and callbacks run during the load. */
const HOLD = "10s";
/** Retries 100× sooner than in production (5 s → 50 ms, 5 min → 3 s, …): failing callbacks retry during the run. */
const RETRY_SCALE = "0.01";
const SAMPLE_EVERY_MS = 5_000;
const GOAL_MB = 150;
const CONNECTIONS = 256;
/**
 * A duplicate sent while the lead whose number it repeats is still in flight can be stored first
 * (200, and that lead 422): about one in 350,000 requests here, the workload's race, not the service's.
 */
const UNEXPECTED_TOLERATED = 0.001;

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-memory-"));
const logPath = join(tmp, "server.log");
const databasePath = join(tmp, "memory.db");
const processes = new BenchProcesses();

async function cleanUp() {
  await processes.stop();
  discardTmp(tmp);
}

/** A process's memory from /proc/PID/status, in MiB: resident in all, anonymous (heaps, SQLite's cache), file-backed, and the peak. */
interface Memory {
  rss: number;
  anon: number;
  file: number;
  peak: number;
}

function memoryOf(pid: number): Memory {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(text)?.[1] ?? 0) / 1024;
  return { rss: kib("VmRSS"), anon: kib("RssAnon"), file: kib("RssFile"), peak: kib("VmHWM") };
}

interface Sample extends Memory {
  /** Seconds since the load began. */
  at: number;
  /** Requests due by then (the generators send on schedule). */
  sent: number;
}

interface Point extends Memory {
  label: string;
  /** Seconds since the load began (idle: before it). */
  at: number;
  sent: number;
  pendingLeads: number;
  callbackQueue: number;
  databaseMB: number;
}

/** A gauge's value from the service's /metrics (the queues: a backlog the worker carries is memory too). */
async function gauges(url: string): Promise<{ pendingLeads: number; callbackQueue: number }> {
  const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text();
  const gauge = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, "m").exec(text)?.[1] ?? Number.NaN);
  return { pendingLeads: gauge("lead_ingress_leads_pending"), callbackQueue: gauge("lead_ingress_callback_queue_depth") };
}

async function point(label: string, at: number, sent: number): Promise<Point> {
  const databaseMB = statSync(databasePath).size / 1e6 + (statSync(`${databasePath}-wal`, { throwIfNoEntry: false })?.size ?? 0) / 1e6;
  const p = { label, at, sent, ...memoryOf(processes.server!.pid), ...(await gauges(processes.server!.url)), databaseMB };
  console.log(
    `  ${label}: ${sent} requests, RSS ${p.rss.toFixed(0)} MiB (anon ${p.anon.toFixed(0)}, file ${p.file.toFixed(0)}), ` +
      `pending leads ${p.pendingLeads}, callback queue ${p.callbackQueue}, database ${p.databaseMB.toFixed(0)} MB`,
  );
  return p;
}

/** Sends `count` requests at `rate` (postLead and prePing side by side, each its own generator); resolves when both are done. */
async function sendLoad(count: number, phoneStart: number): Promise<OpenLoopResult[]> {
  const seconds = count / rate;
  const common = {
    url: processes.server!.url,
    headers: { authorization: basicAuth("bench", "bench-password") },
    connections: CONNECTIONS,
    warmup: 0,
    duration: seconds,
  };
  const workload = (template: string, start: number, workloadShares: typeof shares | object) => ({
    template,
    slot: PHONE_SLOT,
    invalidBody: invalidLead,
    phoneStart: start,
    callbackBase: processes.receivers!.healthy.url,
    failingBases: processes.receivers!.failingBases,
    shares: workloadShares,
    seed: start,
  });
  return await Promise.all([
    runOpenLoopLoad({ ...common, path: "/v1/postLead", rate: rate * (1 - PRE_PING_SHARE), workload: workload(workloadLeadTemplate, phoneStart, shares) }),
    runOpenLoopLoad({ ...common, path: "/v1/prePing", rate: rate * PRE_PING_SHARE, workload: workload(prePingTemplate, phoneStart + count, {}) }),
  ]);
}

/** Least-squares slope of RSS (MiB) over time (minutes). */
function slopePerMinute(samples: Sample[]): number {
  const n = samples.length;
  if (n < 2) return 0;
  const meanT = samples.reduce((s, x) => s + x.at / 60, 0) / n;
  const meanR = samples.reduce((s, x) => s + x.rss, 0) / n;
  let num = 0;
  let den = 0;
  for (const x of samples) {
    num += (x.at / 60 - meanT) * (x.rss - meanR);
    den += (x.at / 60 - meanT) ** 2;
  }
  return den === 0 ? 0 : num / den;
}

/**
 * RSS over the minute up to a point (its samples and the point's own reading): median and highest.
 * One reading lands wherever the garbage collector happens to be (samples a few seconds apart
 * differed by up to 30 MiB); the median does not.
 */
function lastMinute(samples: Sample[], point: Point): { median: number; max: number } {
  const rss = [...samples.filter((s) => s.at > point.at - 60 && s.at <= point.at).map((s) => s.rss), point.rss];
  rss.sort((a, b) => a - b);
  return { median: rss[Math.floor(rss.length / 2)]!, max: rss.at(-1)! };
}

function printTable(points: Point[], samples: Sample[]): void {
  const header = ["point", "requests", "RSS MiB", "last min median", "last min max", "anon", "file", "pending leads", "callback queue", "database MB"];
  const cells = points.map((p) => [
    p.label,
    String(p.sent),
    p.rss.toFixed(0),
    lastMinute(samples, p).median.toFixed(0),
    lastMinute(samples, p).max.toFixed(0),
    p.anon.toFixed(0),
    p.file.toFixed(0),
    String(p.pendingLeads),
    String(p.callbackQueue),
    p.databaseMB.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (row: string[]) => row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const row of cells) console.log(line(row));
}

async function main() {
  console.log(
    `Lead Ingress memory (${binary ?? "bun src/main.ts"}): ${requests} requests at ${rate}/s (${PRE_PING_SHARE * 100}% prePing), then a ${soakMinutes}-minute soak; hold ${HOLD}, retries ×${RETRY_SCALE}`,
  );
  console.log(`workload shares: ${JSON.stringify(shares)}; database and logs in ${tmp}`);
  console.log(
    `load average before start: ${loadavg()
      .map((n) => n.toFixed(2))
      .join(" ")}`,
  );
  processes.receivers = await startWorkloadReceivers({ repoDir: REPO_DIR, dir: tmp });
  const running = (processes.server = await startServer({
    binary,
    databasePath,
    logPath,
    repoDir: REPO_DIR,
    flags: ["--allow-private-callbacks", "--hold-period", HOLD, "--callback-retry-scale", RETRY_SCALE],
  }));
  await Bun.sleep(2_000); // settled after start-up
  const points: Point[] = [await point("idle", 0, 0)];

  const samples: Sample[] = [];
  const loadStartedAt = performance.now();
  let sentBefore = 0;
  let segmentStartedAt = loadStartedAt;
  const sampler = setInterval(() => {
    const at = (performance.now() - loadStartedAt) / 1000;
    const sent = sentBefore + Math.round(((performance.now() - segmentStartedAt) / 1000) * rate);
    samples.push({ at, sent, ...memoryOf(running.pid) });
  }, SAMPLE_EVERY_MS);

  const marks = [Math.round(requests / 10), Math.round(requests / 2), requests];
  const soakSegment = 60 * rate;
  const segments = [
    ...marks.map((mark, i) => ({ label: `after ${mark}`, count: mark - (marks[i - 1] ?? 0), soak: false })),
    ...Array.from({ length: soakMinutes }, (_, i) => ({ label: `soak +${i + 1} min`, count: soakSegment, soak: true })),
  ];
  const blocks = phoneBlocks(...segments.map((s) => s.label));
  const results: Record<string, OpenLoopResult[]> = {};
  let soakStartedAt = Number.POSITIVE_INFINITY;
  try {
    for (const segment of segments) {
      if (segment.soak && soakStartedAt === Number.POSITIVE_INFINITY) soakStartedAt = (performance.now() - loadStartedAt) / 1000;
      segmentStartedAt = performance.now();
      results[segment.label] = await sendLoad(segment.count, blocks[segment.label]!);
      sentBefore += segment.count;
      points.push(await point(segment.label, (performance.now() - loadStartedAt) / 1000, sentBefore));
    }
  } finally {
    clearInterval(sampler);
  }

  const soakSamples = samples.filter((s) => s.at >= soakStartedAt);
  const slope = slopePerMinute(soakSamples);
  const after = points.find((p) => p.label === `after ${requests}`)!;
  console.log("");
  printTable(points, samples);
  console.log(`peak RSS ${Math.max(...points.map((p) => p.peak)).toFixed(0)} MiB`);
  if (soakMinutes > 0) console.log(`soak: RSS slope ${slope.toFixed(2)} MiB/min over ${soakSamples.length} samples (${soakMinutes} min at ${rate}/s)`);
  const goalMiB = (GOAL_MB * 1e6) / 2 ** 20;
  const judged = lastMinute(samples, after).median;
  console.log(
    `goal: RSS after ${requests} requests ≤ ${GOAL_MB} MB (${goalMiB.toFixed(0)} MiB), judged on the last minute's median: ${judged.toFixed(0)} MiB, ${judged <= goalMiB ? "met" : "NOT MET"}`,
  );
  for (const [label, pair] of Object.entries(results))
    for (const r of pair)
      if (r.errors + r.unanswered > 0 || r.unexpected > UNEXPECTED_TOLERATED * r.sent)
        console.log(`WARNING: ${label}: ${JSON.stringify(r.statuses)}, ${r.unanswered} unanswered, ${r.errors} errors`);

  const resultsPath = join(REPO_DIR, ".bench", "memory.json");
  writeJson(resultsPath, {
    finishedAt: new Date().toISOString(),
    settings: {
      requests,
      soakMinutes,
      rate,
      prePingShare: PRE_PING_SHARE,
      hold: HOLD,
      retryScale: RETRY_SCALE,
      binary: binary ?? null,
      shares,
      bun: Bun.version,
      loadAverageAtEnd: loadavg(),
    },
    points,
    soakSlopeMiBPerMinute: slope,
    samples,
    load: results,
  });
  console.log(`results written to ${resultsPath}`);
}

await runBenchmark(main, cleanUp, logPath);
