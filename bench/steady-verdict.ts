// bench:steady's verdict, read from the stopped server's database: was every lead decided within
// its hold plus the slack, and every healthy callback delivered within it (a callback that fails
// once within its first retry delay, 5 s + 20% jitter, more)? And did intake answer every request
// as expected, at the rate sent? A rate passes only if all of these hold.
import { countWhere, num, openBenchDb, type BenchDb } from "./steady-db.ts";
import { DEFAULT_SCHEDULE_MS } from "../src/callbacks/backoff.ts";
import type { OpenLoopResult } from "./open-loop.ts";
import { CALLBACK_PATHS } from "./workload.mjs";

/** The first retry's longest wait: the schedule's first delay with +20% jitter. */
const FIRST_RETRY_MS = DEFAULT_SCHEDULE_MS[0]! * 1.2;
/** Intake "kept up" if it answered at least this share of the rate sent. */
const INTAKE_SHARE = 0.97;

export interface Lateness {
  count: number;
  /** Not decided (leads) or not delivered (callbacks) at the end. */
  unfinished: number;
  /** Finished later than allowed. */
  late: number;
  /** Milliseconds past the end of the hold: the largest and the 99th percentile. */
  maxLagMs: number;
  p99LagMs: number;
}

export interface Verdict {
  passed: boolean;
  leads: Lateness;
  healthyCallbacks: Lateness;
  retriedCallbacks: Lateness;
  /** Attempts made to the endpoints that always fail or hang, per callback. */
  failingAttemptsPerCallback: number;
  intakeKeptUp: boolean;
  reasons: string[];
}

async function lateness(db: BenchDb, finishedAt: string, from: string, where: string, allowedMs: number): Promise<Lateness> {
  const lag = `(${finishedAt} - l.decide_after)`;
  const row = await db.row<{ count: number; unfinished: number; late: number; maxLag: number | null }>(
    `SELECT ${num("count(*)")} AS count, ${countWhere(`${finishedAt} IS NULL`)} AS unfinished, ${countWhere(`${lag} > $1`)} AS late, ${num(`max(${lag})`)} AS "maxLag"
     FROM ${from} WHERE ${where}`,
    [allowedMs],
  );
  const finished = row.count - row.unfinished;
  const p99 =
    finished === 0
      ? null
      : await db.row<{ lag: number }>(`SELECT ${num(lag)} AS lag FROM ${from} WHERE ${where} AND ${finishedAt} IS NOT NULL ORDER BY lag LIMIT 1 OFFSET $1`, [
          Math.min(finished - 1, Math.floor(finished * 0.99)),
        ]);
  return { count: row.count, unfinished: row.unfinished, late: row.late, maxLagMs: row.maxLag ?? 0, p99LagMs: p99?.lag ?? 0 };
}

export async function verdictOf(databasePath: string, options: { holdMs: number; slackMs: number; load: OpenLoopResult }): Promise<Verdict> {
  const db = openBenchDb(databasePath);
  try {
    const callbacksOf = "callbacks c JOIN leads l ON l.id_key = c.lead_key";
    const leads = await lateness(db, "l.decided_at", "leads l", "1 = 1", options.slackMs);
    const healthyCallbacks = await lateness(db, "c.delivered_at", callbacksOf, `c.url LIKE '%${CALLBACK_PATHS.ok}'`, options.slackMs);
    const retriedCallbacks = await lateness(
      db,
      "c.delivered_at",
      callbacksOf,
      `c.url LIKE '%${CALLBACK_PATHS.retryPrefix}%'`,
      options.slackMs + FIRST_RETRY_MS,
    );
    const failing = await db.row<{ callbacks: number; attempts: number }>(
      `SELECT ${num("count(*)")} AS callbacks, ${num("coalesce(sum(attempt_count), 0)")} AS attempts FROM callbacks WHERE url LIKE '%${CALLBACK_PATHS.dead}' OR url LIKE '%${CALLBACK_PATHS.hang}'`,
    );
    const { load } = options;
    const intakeKeptUp = load.unanswered + load.errors + load.unexpected === 0 && load.answeredPerSec >= INTAKE_SHARE * load.rate;
    const reasons = [
      ...(intakeKeptUp
        ? []
        : [`intake: ${load.answeredPerSec.toFixed(0)}/s of ${load.rate}, ${load.unanswered} unanswered, ${load.errors + load.unexpected} failed`]),
      ...describeLate("leads decided", leads),
      ...describeLate("healthy callbacks delivered", healthyCallbacks),
      ...describeLate("retried callbacks delivered", retriedCallbacks),
    ];
    return {
      passed: reasons.length === 0,
      leads,
      healthyCallbacks,
      retriedCallbacks,
      failingAttemptsPerCallback: failing.callbacks === 0 ? 0 : failing.attempts / failing.callbacks,
      intakeKeptUp,
      reasons,
    };
  } finally {
    await db.close();
  }
}

function describeLate(what: string, l: Lateness): string[] {
  return l.unfinished + l.late === 0
    ? []
    : [`${what}: ${l.unfinished} of ${l.count} not at all, ${l.late} late (max ${(l.maxLagMs / 1000).toFixed(1)} s past the hold)`];
}

export function printVerdict(rate: number, v: Verdict): void {
  const lags = (l: Lateness) => `${l.count} (p99 ${(l.p99LagMs / 1000).toFixed(1)} s, max ${(l.maxLagMs / 1000).toFixed(1)} s past the hold)`;
  console.log(`  leads ${lags(v.leads)}; healthy callbacks ${lags(v.healthyCallbacks)}; retried ${lags(v.retriedCallbacks)}`);
  console.log(`  attempts per always-failing or hanging callback: ${v.failingAttemptsPerCallback.toFixed(2)}`);
  console.log(`  ${rate} leads/s: ${v.passed ? "SUSTAINED" : `NOT SUSTAINED: ${v.reasons.join("; ")}`}`);
}
