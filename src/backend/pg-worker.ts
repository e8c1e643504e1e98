// The worker's writes on PostgreSQL, set-based: a claimed batch of due leads is decided with one
// statement that reads their checks and one that records every decision (instead of two reads and
// a seven-statement transaction per lead), and the attempts of the deliveries that finish within
// one turn are recorded by one statement (instead of BEGIN, attempt, callback, COMMIT each). As
// for intake (pg-intake.ts), round trips were the drain's cost on this machine (bench/README.md).
// Whatever a statement does not settle (a lease lost, checks changed meanwhile, a failed
// statement) goes through the per-item script, whose answer is then the item's.
import type { DueCallback, AttemptRecord, NextStep } from "../store/callbacks/index.ts";
import type { PgDb } from "../db/pg/client.ts";
import { driverErrors } from "../db/pg/errors.ts";
import { turnBatches, type Waiting } from "../db/pg/turn-batches.ts";
import { leadKey } from "../db/schema.ts";
import type { DecisionBatches } from "../final-results/job.ts";
import type { RecordAttempt } from "../callbacks/job.ts";
import { op } from "../db/script.ts";
import type { Store } from "../store/index.ts";
import { rawOn } from "../store/pg-session.ts";
import { checksOfRow, decisionRow, leadKeysJson, type CheckRow } from "./decision-rows.ts";

/** The worker's batches (worker/index.ts hands them to its jobs); SQLite's group commit batches attempts already. */
export interface WorkerBatches {
  decisions: DecisionBatches;
  recordAttempt?: RecordAttempt;
}

/** The leads' checks (record.ts checksNow) in one statement. */
const CHECKS_OF = `
  SELECT l.id, l.operator_decision, l.operator_reason, EXISTS (SELECT 1 FROM suppressions s WHERE s.phone_e164 = l.phone_e164) AS suppressed
  FROM json_to_recordset($1::text::json) AS r(key bigint, id text) JOIN leads l ON l.id_key = r.key AND l.id = r.id`;

/**
 * record.ts recordIfStill for a batch: each lead is finished only if `token` still holds it and its
 * checks are still those it was decided on (the row lock of the UPDATE orders it after an operator's
 * decision committing meanwhile, which it then sees), and with it its callback is released and, if
 * rejected, its number's claim dropped. $2 is the token, $3 now.
 */
const RECORD_DECISIONS = `
  WITH d AS (
    SELECT * FROM json_to_recordset($1::text::json)
      AS r(key bigint, id text, phone text, status text, reason text, payload text, suppressed boolean, "operatorDecision" text, "operatorReason" text)
  ),
  finished AS (
    UPDATE leads l SET status = d.status, decided_at = $3, rejection_reason = d.reason, locked_until = NULL, claim_token = NULL
    FROM d
    WHERE l.id_key = d.key AND l.id = d.id AND l.claim_token = $2 AND l.status = 'pending'
      AND l.operator_decision IS NOT DISTINCT FROM d."operatorDecision" AND l.operator_reason IS NOT DISTINCT FROM d."operatorReason"
      AND EXISTS (SELECT 1 FROM suppressions s WHERE s.phone_e164 = d.phone) = d.suppressed
    RETURNING d.key, d.id, d.phone, d.status, d.payload
  ),
  released AS (
    UPDATE callbacks c SET status = 'pending', payload = f.payload, next_attempt_at = $3, updated_at = $3
    FROM finished f WHERE c.lead_key = f.key AND c.status = 'held'
  ),
  dropped AS (
    DELETE FROM phone_claims p USING finished f WHERE f.status = 'rejected' AND p.phone_number = substr(f.phone, 2)::bigint AND p.lead_id = f.id
  )
  SELECT id FROM finished`;

/**
 * callbacks/pg.ts recordAttempt for a batch: every attempt is kept (history), each callback moves
 * on only if its token still holds it. Answers the positions of those that did.
 */
const RECORD_ATTEMPTS = `
  WITH a AS (
    SELECT * FROM json_to_recordset($1::text::json)
      AS r(i int, key bigint, "callbackId" text, token text, "startedAt" bigint, "durationMs" int, "statusCode" int, error text, "responseExcerpt" text,
           status text, "nextAt" bigint, "deliveredAt" bigint, now bigint)
  ),
  kept AS (
    INSERT INTO callback_attempts (callback_id, attempt_no, started_at, duration_ms, status_code, error, response_excerpt)
    SELECT a."callbackId", (SELECT count(*) + 1 FROM callback_attempts k WHERE k.callback_id = a."callbackId"), a."startedAt", a."durationMs", a."statusCode", a.error, a."responseExcerpt"
    FROM a
  ),
  moved AS (
    UPDATE callbacks c
    SET status = a.status, next_attempt_at = a."nextAt", delivered_at = a."deliveredAt", last_error = a.error, updated_at = a.now,
        attempt_count = c.attempt_count + 1, locked_until = NULL, claim_token = NULL
    FROM a WHERE c.lead_key = a.key AND c.claim_token = a.token
    RETURNING a.i
  )
  SELECT i FROM moved`;

interface AttemptToRecord {
  callback: Pick<DueCallback, "id" | "leadId">;
  token: string;
  attempt: AttemptRecord;
  next: NextStep;
  now: number;
}

/**
 * Deliveries finishing within a turn; two on their way (as intake's). One callback's attempts are
 * numbered by counting the earlier ones, so a second attempt of a callback in one batch (a lease
 * that expired under a slow delivery) is recorded alone after it.
 */
const ATTEMPT_LIMITS = { maxBatch: 256, maxInFlight: 2 };

/** The worker's batches on `db`; `store` (the service's) runs what a statement leaves to the per-item script. */
export function pgWorkerBatches(db: PgDb, store: Store<"promise", "promise">): Required<WorkerBatches> {
  const alone = ({ item: { callback, token, attempt, next, now }, resolve, reject }: Waiting<AttemptToRecord, boolean>) =>
    store.write((t) => op(t.callbacks.recordAttempt(callback, token, attempt, next, now))).then(resolve, reject);

  async function recordTogether(waiting: Waiting<AttemptToRecord, boolean>[]) {
    const seen = new Set<string>();
    const batch = waiting.filter((w) => !seen.has(w.item.callback.id) && seen.add(w.item.callback.id));
    const later = waiting.filter((w) => !batch.includes(w));
    let moved: Set<number> | null = null;
    try {
      const rows = batch.map(({ item: { callback, token, attempt, next, now } }, i) => ({
        i,
        key: leadKey(callback.leadId).toString(),
        callbackId: callback.id,
        token,
        startedAt: attempt.startedAt,
        durationMs: attempt.durationMs,
        statusCode: attempt.statusCode,
        error: attempt.error,
        responseExcerpt: attempt.responseExcerpt,
        status: next.kind === "retry" ? "pending" : next.kind,
        nextAt: next.kind === "retry" ? next.at : null,
        deliveredAt: next.kind === "delivered" ? now : null,
        now,
      }));
      moved = new Set(((await driverErrors(rawOn(db, RECORD_ATTEMPTS, [JSON.stringify(rows)]))) as unknown as { i: number }[]).map((row) => row.i));
    } catch {
      for (const w of batch) void alone(w);
    }
    if (moved) batch.forEach((w, i) => w.resolve(moved.has(i)));
    for (const w of later) void alone(w);
  }

  const recordAttempt = turnBatches(recordTogether, ATTEMPT_LIMITS);
  return {
    recordAttempt: (callback, token, attempt, next, now) => recordAttempt({ callback, token, attempt, next, now }),
    decisions: {
      async checksOf(leads) {
        const rows = (await driverErrors(rawOn(db, CHECKS_OF, [leadKeysJson(leads)]))) as unknown as CheckRow[];
        return new Map(rows.map((row) => [row.id, checksOfRow(row)]));
      },
      async record(decisions, token, now) {
        const rows = decisions.map(decisionRow);
        const finished = (await driverErrors(rawOn(db, RECORD_DECISIONS, [JSON.stringify(rows), token, now]))) as unknown as { id: string }[];
        return new Set(finished.map((row) => row.id));
      },
    },
  };
}
