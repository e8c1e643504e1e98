// The worker's set-based statements on PostgreSQL, composed from their tables' texts (leads/,
// callbacks/, phone-claims/ batch-sql.ts): a batch of due leads has its facts read by one statement
// and every decision recorded by one (the leads finished, their callbacks released, the rejected
// ones' claims dropped, their findings at decision recorded, as one data-modifying CTE: one round trip); a turn's attempts are recorded
// by one. backend/pg-worker.ts gathers the items and sends what a statement does not settle to the
// per-item scripts.
import type { PgDb } from "../../db/pg/client.ts";
import { driverErrors } from "../../db/pg/errors.ts";
import { leadKey } from "../../db/schema.ts";
import { PG as CALLBACKS } from "../callbacks/batch-sql.ts";
import { PG as FINDINGS } from "../findings/batch-sql.ts";
import type { AttemptRecord, DueCallback, NextStep } from "../callbacks/index.ts";
import { PG as LEADS, type FactsRow } from "../leads/batch-sql.ts";
import { rawOn } from "../pg-session.ts";
import { PG as PHONE_CLAIMS } from "../phone-claims/batch-sql.ts";
import type { DecisionBatches } from "./index.ts";
import { decisionRow, factsOfRow, leadKeysJson } from "./rows.ts";

/** record.ts recordDecision for a batch, fenced by lease token and facts version (LEADS.finish). $2 is the token, $3 now. */
const RECORD_DECISIONS = `
  WITH d AS (${LEADS.decisions}),
  finished AS (${LEADS.finish}),
  released AS (${CALLBACKS.releaseFinished}),
  dropped AS (${PHONE_CLAIMS.dropRejectedFinished}),
  settled AS (${FINDINGS.settleFinished})
  SELECT id FROM finished`;

/** The decisions' statements on `db` (leased leads: no readDue). */
export function pgDecisionBatches(db: PgDb): DecisionBatches {
  return {
    async checksOf(leads, withFields = false) {
      const rows = (await driverErrors(rawOn(db, withFields ? LEADS.factsWithFieldsOf : LEADS.factsOf, [leadKeysJson(leads)]))) as unknown as FactsRow[];
      return new Map(rows.map((row) => [row.id, factsOfRow(row, withFields)]));
    },
    async record(decisions, token, now) {
      const rows = decisions.map(decisionRow);
      const finished = (await driverErrors(rawOn(db, RECORD_DECISIONS, [JSON.stringify(rows), token, now]))) as unknown as { id: string }[];
      return new Set(finished.map((row) => row.id));
    },
  };
}

export interface AttemptToRecord {
  callback: Pick<DueCallback, "id" | "leadId">;
  token: string;
  attempt: AttemptRecord;
  next: NextStep;
  now: number;
}

/** Records the attempts (each callback at most once in `attempts`) in one statement; answers the positions of the callbacks moved on. */
export async function recordAttempts(db: PgDb, attempts: AttemptToRecord[]): Promise<Set<number>> {
  const rows = attempts.map(({ callback, token, attempt, next, now }, i) => ({
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
  const moved = (await driverErrors(rawOn(db, CALLBACKS.recordAttempts, [JSON.stringify(rows)]))) as unknown as { i: number }[];
  return new Set(moved.map((row) => row.i));
}
