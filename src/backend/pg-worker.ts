// The worker's writes on PostgreSQL, set-based: a claimed batch of due leads is decided with one
// statement that reads their facts and one that records every decision (instead of two reads and
// a seven-statement transaction per lead), and the attempts of the deliveries that finish within
// one turn are recorded by one statement (instead of BEGIN, attempt, callback, COMMIT each). As
// for intake (pg-intake.ts), round trips were the drain's cost on this machine (bench/README.md).
// The statements are the store's (store/batches/pg.ts); this gathers the items, and whatever a
// statement does not settle (a lease lost, facts changed meanwhile, a failed statement) goes
// through the per-item script, whose answer is then the item's.
import type { PgDb } from "../db/pg/client.ts";
import { turnBatches, type Waiting } from "../db/pg/turn-batches.ts";
import { op } from "../db/script.ts";
import type { WorkerBatches } from "../store/batches/index.ts";
import { pgDecisionBatches, recordAttempts, type AttemptToRecord } from "../store/batches/pg.ts";
import type { Store } from "../store/index.ts";

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
      moved = await recordAttempts(
        db,
        batch.map((w) => w.item),
      );
    } catch {
      for (const w of batch) void alone(w);
    }
    if (moved) batch.forEach((w, i) => w.resolve(moved.has(i)));
    for (const w of later) void alone(w);
  }

  const recordAttempt = turnBatches(recordTogether, ATTEMPT_LIMITS);
  return {
    recordAttempt: (callback, token, attempt, next, now) => recordAttempt({ callback, token, attempt, next, now }),
    decisions: pgDecisionBatches(db),
  };
}
