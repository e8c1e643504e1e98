// The open-loop load generator (issue 20): sends at a fixed arrival rate whatever the answers do,
// run by Bun in its own process: `bun bench/open-loop.ts '<json options>'`; prints one JSON line.
//
// Request i is due at start + i / rate. Its latency is measured from that INTENDED time, not from
// when it was sent, so a generator that falls behind (or a server that stalls it) shows up in the
// figures instead of hiding them: the correction for coordinated omission. Sending never waits for
// an answer: up to `connections` keep-alive connections (keep-alive.ts) carry one request each, the
// rest wait for a free one, and that wait counts in the latency too. A warm-up precedes the
// measured window.
import { keepAlivePool } from "./keep-alive.ts";
import { createWorkload, EXPECTED_STATUS, type RequestKind, type WorkloadOptions } from "./workload.mjs";

export interface OpenLoopOptions {
  url: string;
  path: string;
  headers: Record<string, string>;
  /** Requests per second, sent evenly. */
  rate: number;
  /** Connections at most; a slow answer holds one, not the schedule. */
  connections: number;
  /** Seconds measured, after `warmup` seconds sent at the same rate and not measured. */
  duration: number;
  warmup: number;
  /** A fixed body for every request (answered 200), or a workload (a body and an expected status each). */
  body?: string;
  workload?: WorkloadOptions;
}

export interface OpenLoopResult {
  rate: number;
  /** Measured requests: sent, answered (any status), failed (no answer), and still unanswered DRAIN_MS after the last was due. */
  sent: number;
  answered: number;
  unanswered: number;
  errors: number;
  /** Answers per second over the measured window (first due time to last answer). */
  answeredPerSec: number;
  /** Answers in each second of the measured window, by arrival: a service falling behind shows as a slope. */
  answeredBySecond: number[];
  /** Milliseconds from intended send to the answer's end (unanswered: to the give-up time). */
  p50Ms: number;
  p99Ms: number;
  p999Ms: number;
  maxMs: number;
  /** How late the generator itself sent (ms after the intended time): p99 and max. */
  sendLagP99Ms: number;
  sendLagMaxMs: number;
  maxInFlight: number;
  /** Answers per "kind:status", and how many had a status other than their kind's expected one. */
  statuses: Record<string, number>;
  unexpected: number;
  /** The generator's own CPU over the measured window, in cores (1 = one core busy). */
  generatorCores: number;
  measuredFrom: number;
  measuredTo: number;
}

/** Unanswered requests are given up this long after the last one was due. */
const DRAIN_MS = 10_000;

/** The value at quantile q of an ascending array (nearest rank). */
export function percentile(sorted: ArrayLike<number>, q: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

type NextRequest = () => { kind: RequestKind; body: string };

function requestSource(options: OpenLoopOptions): NextRequest {
  if (options.workload) {
    const workload = createWorkload(options.workload);
    return () => workload.next();
  }
  const fixed = { kind: "valid" as const, body: options.body ?? "" };
  return () => fixed;
}

/** Calls `send(i)` for i = 0 … total-1, each once it is due; resolves after the last is sent. */
function sendOnSchedule(total: number, dueAt: (i: number) => number, send: (i: number) => void): Promise<void> {
  // Sends everything due, then sleeps until the next is due. A timer fires about a millisecond
  // late, so at 5,000/s a handful go together; the send lag reports how late the generator was.
  return new Promise((resolve) => {
    let next = 0;
    const sendDue = () => {
      const now = performance.now();
      while (next < total && dueAt(next) <= now) send(next++);
      if (next < total) setTimeout(sendDue, Math.max(0, dueAt(next) - performance.now()));
      else resolve();
    };
    setTimeout(sendDue, Math.max(0, dueAt(0) - performance.now()));
  });
}

/** What the measured requests did, slot k being the k-th measured request. */
function measurements(measured: number, windowStart: number) {
  // Exact values, no histogram: a run is bounded (10 minutes at 5,000/s is 3 M samples, 24 MB).
  const latencies = new Float64Array(measured).fill(Number.NaN);
  const lags = new Float64Array(measured);
  const statuses: Record<string, number> = {};
  const answeredBySecond: number[] = [];
  const counts = { unexpected: 0, errors: 0, lastAnswerAt: windowStart };
  return {
    sent(slot: number, lag: number) {
      lags[slot] = lag;
    },
    answered(slot: number, latency: number, kind: RequestKind, status: number | "error") {
      const now = performance.now();
      latencies[slot] = latency;
      counts.lastAnswerAt = now;
      const second = Math.floor((now - windowStart) / 1000);
      answeredBySecond[second] = (answeredBySecond[second] ?? 0) + 1;
      const key = `${kind}:${status}`;
      statuses[key] = (statuses[key] ?? 0) + 1;
      if (status === "error") counts.errors++;
      else if (status !== EXPECTED_STATUS[kind]) counts.unexpected++;
    },
    /** Requests never answered count as answered at `giveUp(slot)`: a lower bound. */
    summary(giveUp: (slot: number) => number, lastDueAt: number) {
      let unanswered = 0;
      for (let k = 0; k < measured; k++) {
        if (!Number.isNaN(latencies[k]!)) continue;
        latencies[k] = giveUp(k);
        unanswered++;
      }
      latencies.sort();
      lags.sort();
      const answered = measured - unanswered - counts.errors;
      const windowMs = Math.max(counts.lastAnswerAt, lastDueAt) - windowStart;
      return {
        sent: measured,
        answered,
        unanswered,
        errors: counts.errors,
        answeredPerSec: answered / (windowMs / 1000),
        answeredBySecond: Array.from(answeredBySecond, (n) => n ?? 0),
        p50Ms: percentile(latencies, 0.5),
        p99Ms: percentile(latencies, 0.99),
        p999Ms: percentile(latencies, 0.999),
        maxMs: latencies[measured - 1] ?? 0,
        sendLagP99Ms: percentile(lags, 0.99),
        sendLagMaxMs: lags[measured - 1] ?? 0,
        statuses,
        unexpected: counts.unexpected,
        windowMs,
      };
    },
  };
}

export async function runOpenLoop(options: OpenLoopOptions): Promise<OpenLoopResult> {
  const pool = keepAlivePool(options.url, options.connections);
  const headers = { "content-type": "application/json", ...options.headers };
  const nextRequest = requestSource(options);
  const total = Math.round(options.rate * (options.warmup + options.duration));
  const firstMeasured = Math.round(options.rate * options.warmup);
  const startAt = performance.now() + 50;
  const dueAt = (i: number) => startAt + (i * 1000) / options.rate;
  const windowStart = dueAt(firstMeasured);
  const measured = measurements(total - firstMeasured, windowStart);
  let cpuAtWindow: NodeJS.CpuUsage | undefined;
  let inFlight = 0;
  let maxInFlight = 0;

  async function send(i: number): Promise<void> {
    const { kind, body } = nextRequest();
    const slot = i - firstMeasured;
    if (slot === 0) cpuAtWindow = process.cpuUsage();
    if (slot >= 0) measured.sent(slot, performance.now() - dueAt(i));
    maxInFlight = Math.max(maxInFlight, ++inFlight);
    let status: number | "error";
    try {
      status = await pool.post(options.path, headers, body);
    } catch {
      status = "error"; // a refused or reset connection: counted, with the time it took to fail
    }
    inFlight--;
    if (slot >= 0) measured.answered(slot, performance.now() - dueAt(i), kind, status);
  }

  await sendOnSchedule(total, dueAt, (i) => void send(i));
  const giveUpAt = dueAt(total - 1) + DRAIN_MS;
  while (inFlight > 0 && performance.now() < giveUpAt) await Bun.sleep(5);
  const cpu = process.cpuUsage(cpuAtWindow);
  pool.close();
  const { windowMs, ...summary } = measured.summary((slot) => giveUpAt - dueAt(firstMeasured + slot), dueAt(total - 1));
  return {
    rate: options.rate,
    ...summary,
    maxInFlight,
    generatorCores: (cpu.user + cpu.system) / 1000 / windowMs,
    measuredFrom: Math.round(performance.timeOrigin + windowStart),
    measuredTo: Math.round(performance.timeOrigin + windowStart + windowMs),
  };
}

if (import.meta.main) {
  const result = await runOpenLoop(JSON.parse(process.argv[2] ?? "{}") as OpenLoopOptions);
  console.log(JSON.stringify(result));
}
