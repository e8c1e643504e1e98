// PostgreSQL's group commit, at the application's level: the leads that arrive within one turn of
// the event loop go to the database together, as one set-based statement, instead of six round
// trips each (BEGIN, claim, lead, callback, key, COMMIT). The round trips, each a backend wake-up,
// were the cost, not the WAL flush: batching multiplied throughput and cut the CPU per lead
// several times (bench/README.md, "Behind the code").
//
// The statement (store/batches/pg-intake.ts) settles only the common case: a lead whose number it claims and whose key (if any)
// was not live. Every other lead (suppressed, claimed, a re-post, a key's replay or conflict) is
// answered by its own per-lead script after the batch committed, so its answer is exactly the
// script's. A lead whose number or key another lead of the batch already carries waits for that
// commit the same way (intake/batched-path.ts canTakeBatchedIntake). If the statement fails, or a
// key it saves was taken by another instance meanwhile, or a cap has too few slots left for the
// batch's leads in its scope, the batch is rolled back and every lead runs alone: a failing lead
// cannot take the others down.
import type { PgDb } from "../db/pg/client.ts";
import { driverError } from "../db/pg/errors.ts";
import { turnBatches, type BatchLimits, type Waiting } from "../db/pg/turn-batches.ts";
import { DatabaseWaitTimeout } from "../db/pg/bounded-waits.ts";
import { canTakeBatchedIntake, emptyBatchContext, joinBatch } from "../intake/batched-path.ts";
import { IDEMPOTENCY_TTL_MS, type IntakeBatches, type LeadToAccept, type SubmitOutcome } from "../intake/service.ts";
import { acceptBatch, type BeforePolicyFacts, heldBackAmong, takeSlots, usedAmong } from "../store/batches/pg-intake.ts";
import { isCapsShort } from "../store/cap-usage/batch-sql.ts";
import type { CapCounter } from "../store/cap-usage/index.ts";
import type { Store } from "../store/index.ts";

export interface IntakeBatchOptions {
  /** config.duplicateWindowMs: a claim older than this is taken over (as the per-lead claim's cutoff). */
  duplicateWindowMs: number;
  /** A batch of leads failed and its leads ran alone (for the log). */
  onBatchFailed?: (error: unknown) => void;
}

/**
 * 256 leads' JSON stays under a few hundred kB. One batch on its way at a time: the requests that
 * arrive meanwhile make the next batch, larger, and one statement's cost hardly depends on its
 * size: one in flight did better than two or four (bench/README.md, "Behind the code").
 */
const LIMITS: BatchLimits = { maxBatch: 256, maxInFlight: 1 };

/** postLead's and prePing's batches on `db`; `store` (the service's) runs the leads a batch leaves to their own script. */
export function pgIntakeBatches(db: PgDb, store: Store<"promise", "promise">, options: IntakeBatchOptions): IntakeBatches {
  const alone = (w: Waiting<LeadToAccept, SubmitOutcome>) => store.write(w.item.alone).then(w.resolve, w.reject);

  async function acceptTogether(waiting: Waiting<LeadToAccept, SubmitOutcome>[]) {
    const { batch, later } = splitBatch(waiting);
    let accepted: Set<string>;
    try {
      accepted = await acceptBatch(
        db,
        batch.map((w) => w.item),
        { duplicateWindowMs: options.duplicateWindowMs, idempotencyTtlMs: IDEMPOTENCY_TTL_MS },
      );
    } catch (error) {
      // No answer within the bound: alone, each lead would wait as long again before its 503
      // (turnBatches answers this batch and the requests gathered behind it).
      const cause = driverError(error);
      if (cause instanceof DatabaseWaitTimeout) throw cause;
      // A cap short of room is no failure: its leads' own scripts share out what is left.
      if (!isCapsShort(cause)) options.onBatchFailed?.(error);
      accepted = new Set();
    }
    for (const w of batch) {
      if (accepted.has(w.item.lead.id)) w.resolve({ kind: "accepted", leadId: w.item.lead.id, replayed: false });
      else void alone(w);
    }
    for (const w of later) void alone(w);
  }

  /** A turn's prePings and checked leads screened by one statement (one round trip, not one or more each). */
  async function screenTogether(waiting: Waiting<BeforePolicyFacts, boolean>[]) {
    const heldBack = await heldBackAmong(
      db,
      waiting.map((w) => w.item),
    );
    waiting.forEach((w, i) => w.resolve(heldBack.has(i)));
  }

  /** Each prePing's counters read by one statement for the turn. */
  async function readTogether(waiting: Waiting<readonly CapCounter[], number[]>[]) {
    const used = await usedAmong(
      db,
      waiting.flatMap((w) => w.item),
    );
    let at = 0;
    for (const w of waiting) {
      w.resolve(used.slice(at, at + w.item.length));
      at += w.item.length;
    }
  }

  /**
   * Each prePing's `pings` slots taken by one statement for the turn, all or none: when a counter is
   * short of room, each prePing is answered false and takes its own (intake/service.ts), one by one.
   */
  async function countTogether(waiting: Waiting<readonly CapCounter[], boolean>[]) {
    let counted = true;
    try {
      await takeSlots(
        db,
        waiting.flatMap((w) => w.item),
      );
    } catch (error) {
      const cause = driverError(error);
      if (cause instanceof DatabaseWaitTimeout) throw cause;
      if (!isCapsShort(cause)) options.onBatchFailed?.(error);
      counted = false;
    }
    for (const w of waiting) w.resolve(counted);
  }

  const accept = turnBatches(acceptTogether, LIMITS);
  const screen = turnBatches(screenTogether, LIMITS);
  const read = turnBatches(readTogether, LIMITS);
  const count = turnBatches(countTogether, LIMITS);
  return {
    accept,
    isBlocked: (phoneE164, claimCutoff) => screen({ phoneE164, claimCutoff, key: null }),
    mayAnswerBeforePolicy: screen,
    usedOf: read,
    countPings: count,
  };
}

/** The leads of `waiting` the statement can take (canTakeBatchedIntake); the others (`later`) run alone once the batch committed. */
function splitBatch(waiting: Waiting<LeadToAccept, SubmitOutcome>[]) {
  const batch: Waiting<LeadToAccept, SubmitOutcome>[] = [];
  const later: Waiting<LeadToAccept, SubmitOutcome>[] = [];
  const context = emptyBatchContext();
  for (const w of waiting) {
    if (!canTakeBatchedIntake(w.item, context)) {
      later.push(w);
      continue;
    }
    joinBatch(w.item, context);
    batch.push(w);
  }
  return { batch, later };
}
