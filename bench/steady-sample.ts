// What bench:steady samples every few seconds while the load runs and the queues drain: the
// service's counters (GET /metrics: leads accepted and decided, callback attempts by result), its
// queues read from the database (a read-only connection beside the server's: leads past their hold
// still pending, callbacks due, and the oldest of each), and the server's RSS; grouped per minute.
import { num, openBenchDb, type BenchDb } from "./steady-db.ts";
import { busyShare, cpuSeconds, machineSample, type MachineSample, rssMiB } from "./cpu.ts";
import type { BenchReceiver } from "./receiver.ts";
import type { BenchServer } from "./server.ts";

// As often as a Prometheus scrape typically comes: the scrape's queue gauges once read every
// pending callback's lead, and at one sample every 5 s they took 11% of the server's CPU (its
// profile at 3,000 leads/s); they read the due index now (store/callbacks/sqlite.ts depth).
const SAMPLE_EVERY_MS = 15_000;
const ATTEMPT_RESULTS = ["delivered", "retry", "dead", "lease_lost"] as const;
type AttemptResult = (typeof ATTEMPT_RESULTS)[number];

export interface Sample {
  at: number;
  accepted: number;
  decided: number;
  attempts: Record<AttemptResult, number>;
  /** Pending leads whose hold is over, and the age of the oldest (s past its hold). */
  leadsDue: number;
  oldestLeadDueS: number;
  /** Callbacks due for an attempt (in flight included), and the oldest's wait (s). */
  callbacksDue: number;
  oldestCallbackDueS: number;
  rssMiB: number;
  /** CPU seconds used so far by the server and the receiver, and the machine's counters. */
  serverCpuS: number;
  receiverCpuS: number;
  machine: MachineSample;
  line: string;
}

/** The counters of a Prometheus text page, by metric name and labels as written. */
function counters(text: string): Map<string, number> {
  const values = new Map<string, number>();
  for (const line of text.split("\n")) {
    const match = /^([a-z_]+(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (match) values.set(match[1]!, Number(match[2]));
  }
  return values;
}

/** The sum of a counter's series that carry `label` (the intake's are per vendor too). */
function totalOf(metrics: Map<string, number>, name: string, label: string): number {
  let total = 0;
  for (const [series, value] of metrics) if (series.startsWith(`${name}{`) && series.includes(label)) total += value;
  return total;
}

/** What a sample takes from a /metrics page: leads accepted (all vendors) and decided, attempts by result. */
export function countersRead(text: string): Pick<Sample, "accepted" | "decided" | "attempts"> {
  const metrics = counters(text);
  const attempts = Object.fromEntries(
    ATTEMPT_RESULTS.map((result) => [result, metrics.get(`lead_ingress_callback_attempts_total{result="${result}"}`) ?? 0]),
  ) as Record<AttemptResult, number>;
  const decided = ["accepted", "rejected"].reduce((n, status) => n + (metrics.get(`lead_ingress_final_results_total{status="${status}"}`) ?? 0), 0);
  return { accepted: totalOf(metrics, "lead_ingress_intake_total", 'outcome="accepted"'), decided, attempts };
}

type Due = { n: number; oldest: number | null };
const LEADS_DUE = `SELECT ${num("count(*)")} AS n, ${num("min(decide_after)")} AS oldest FROM leads WHERE status = 'pending' AND decide_after <= $1`;
const CALLBACKS_DUE = `SELECT ${num("count(*)")} AS n, ${num("min(next_attempt_at)")} AS oldest FROM callbacks WHERE status = 'pending' AND next_attempt_at <= $1`;

async function queues(db: BenchDb, now: number) {
  const [l, c] = [await db.row<Due>(LEADS_DUE, [now]), await db.row<Due>(CALLBACKS_DUE, [now])];
  const age = (oldest: number | null) => (oldest === null ? 0 : (now - oldest) / 1000);
  return { leadsDue: l.n, oldestLeadDueS: age(l.oldest), callbacksDue: c.n, oldestCallbackDueS: age(c.oldest) };
}

export function startSampler(options: { server: BenchServer; receiver: BenchReceiver; databasePath: string; onSample: (sample: Sample) => void }) {
  const db = openBenchDb(options.databasePath);
  const samples: Sample[] = [];
  let stopped = false;

  async function sample(): Promise<Sample> {
    const { accepted, decided, attempts } = countersRead(await (await fetch(`${options.server.url}/metrics`, { signal: AbortSignal.timeout(10_000) })).text());
    const now = Date.now();
    const q = await queues(db, now);
    const rss = rssMiB(options.server.pid);
    // The receiver keeps what it received in memory for its control API; its log keeps it all.
    await options.receiver.clear().catch(() => {});
    const line = `accepted ${accepted}, decided ${decided}, attempts ${JSON.stringify(attempts)}, leads due ${q.leadsDue} (oldest ${q.oldestLeadDueS.toFixed(1)} s), callbacks due ${q.callbacksDue} (oldest ${q.oldestCallbackDueS.toFixed(1)} s), RSS ${rss.toFixed(0)} MiB`;
    const cpu = { serverCpuS: cpuSeconds(options.server.pid), receiverCpuS: cpuSeconds(options.receiver.pid), machine: machineSample() };
    return { at: now, accepted, decided, attempts, ...q, rssMiB: rss, ...cpu, line };
  }

  const running = (async () => {
    while (!stopped) {
      const started = Date.now();
      try {
        const s = await sample();
        samples.push(s);
        options.onSample(s);
      } catch (error) {
        console.log(`  sample failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      await Bun.sleep(Math.max(0, SAMPLE_EVERY_MS - (Date.now() - started)));
    }
  })();

  return {
    /**
     * Waits `minMs` (the last leads' hold and slack), then until every accepted lead is decided, at
     * most `maxMs` in all. Failing callbacks keep coming due, so they are not waited for.
     */
    async drain(minMs: number, maxMs: number): Promise<void> {
      const started = Date.now();
      while (Date.now() - started < maxMs) {
        await Bun.sleep(SAMPLE_EVERY_MS);
        const last = samples.at(-1);
        if (Date.now() - started >= minMs && last && last.leadsDue === 0 && last.accepted === last.decided) break;
      }
    },
    /** Stops sampling (again: no effect) and answers the samples. */
    stop(): Sample[] {
      if (!stopped) void running.then(() => db.close());
      stopped = true;
      return samples;
    },
  };
}

export interface Minute {
  label: string;
  loaded: boolean;
  acceptedPerSec: number;
  decidedPerSec: number;
  deliveredPerSec: number;
  attemptsPerSec: Record<AttemptResult, number>;
  leadsDueEnd: number;
  leadsDueMax: number;
  callbacksDueEnd: number;
  callbacksDueMax: number;
  oldestDueMaxS: number;
  rssMaxMiB: number;
  /** Cores used by the server and the receiver, and the share of all cores busy (every process). */
  serverCores: number;
  receiverCores: number;
  machineBusy: number;
}

/** Samples grouped by minute of the run (from `load.measuredFrom`); after the load, one "drain" group. */
export function byMinute(samples: Sample[], load: { measuredFrom: number; measuredTo: number }): Minute[] {
  const groups = new Map<string, Sample[]>();
  for (const sample of samples) {
    const label = sample.at <= load.measuredTo + SAMPLE_EVERY_MS / 2 ? `min ${Math.max(0, Math.floor((sample.at - load.measuredFrom) / 60_000)) + 1}` : "drain";
    groups.set(label, [...(groups.get(label) ?? []), sample]);
  }
  let previous = samples[0];
  return [...groups].map(([label, group]) => {
    const last = group.at(-1)!;
    const first = previous ?? group[0]!;
    const seconds = Math.max(1, (last.at - first.at) / 1000);
    const perSec = (f: (s: Sample) => number) => (f(last) - f(first)) / seconds;
    previous = last;
    return {
      label,
      loaded: label !== "drain",
      acceptedPerSec: perSec((s) => s.accepted),
      decidedPerSec: perSec((s) => s.decided),
      deliveredPerSec: perSec((s) => s.attempts.delivered),
      attemptsPerSec: Object.fromEntries(ATTEMPT_RESULTS.map((r) => [r, perSec((s) => s.attempts[r])])) as Record<AttemptResult, number>,
      leadsDueEnd: last.leadsDue,
      leadsDueMax: Math.max(...group.map((s) => s.leadsDue)),
      callbacksDueEnd: last.callbacksDue,
      callbacksDueMax: Math.max(...group.map((s) => s.callbacksDue)),
      oldestDueMaxS: Math.max(...group.map((s) => Math.max(s.oldestLeadDueS, s.oldestCallbackDueS))),
      rssMaxMiB: Math.max(...group.map((s) => s.rssMiB)),
      serverCores: perSec((s) => s.serverCpuS),
      receiverCores: perSec((s) => s.receiverCpuS),
      machineBusy: busyShare(first.machine, last.machine),
    };
  });
}

export function printMinutes(minutes: Minute[]): void {
  const header = [
    "minute",
    "intake/s",
    "decided/s",
    "attempts/s ok",
    "retry",
    "dead",
    "lease lost",
    "leads due end/max",
    "callbacks due end/max",
    "oldest due s",
    "RSS MiB",
    "server cores",
    "receiver cores",
    "machine busy",
  ];
  const rows = minutes.map((m) => [
    m.label,
    m.acceptedPerSec.toFixed(0),
    m.decidedPerSec.toFixed(0),
    m.attemptsPerSec.delivered.toFixed(0),
    m.attemptsPerSec.retry.toFixed(0),
    m.attemptsPerSec.dead.toFixed(1),
    m.attemptsPerSec.lease_lost.toFixed(1),
    `${m.leadsDueEnd}/${m.leadsDueMax}`,
    `${m.callbacksDueEnd}/${m.callbacksDueMax}`,
    m.oldestDueMaxS.toFixed(1),
    m.rssMaxMiB.toFixed(0),
    m.serverCores.toFixed(2),
    m.receiverCores.toFixed(2),
    `${(m.machineBusy * 100).toFixed(0)}%`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(" | ");
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const row of rows) console.log(line(row));
}
