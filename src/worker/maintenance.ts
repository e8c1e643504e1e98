// Housekeeping the worker does between jobs: idempotency keys are kept for 24 h (docs/contract.md §6),
// then deleted in small chunks so no transaction holds the write lock for long; so are the cap
// counters of windows that ended (store/cap-usage/). The refusal log is kept for --refusal-retention,
// then deleted a chunk at a time with a pause between chunks, each a background write (held on SQLite
// while requests are in flight), so a large purge never stalls intake.
import { BACKGROUND } from "../db/group-commit.ts";
import { op } from "../db/script.ts";
import { IDEMPOTENCY_TTL_MS } from "../intake/service.ts";
import type { Answering, Store } from "../store/index.ts";

const CHUNK = 5_000;
const EVERY_MS = 60_000;
/**
 * A paused endpoint's row left by an instance that died (callbacks/pauses.ts) goes this long after
 * its pause ended: a live instance deletes its own when the circuit closes or it forgets the endpoint.
 */
const STALE_PAUSE_MS = 3_600_000;
/** Refusals deleted per statement, and the pause before the next chunk while more remain. */
export const REFUSAL_CHUNK = 1_000;
const REFUSAL_PAUSE_MS = 100;

export function createMaintenanceJob(deps: { store: Store<Answering, "promise">; clock: () => number; refusalRetentionMs: number }) {
  let lastFinished = -Infinity;
  let nextRefusalPurge = -Infinity;

  /** One chunk of refusals older than the retention, when due: after a full chunk, the next one after a pause; else a minute later. */
  async function purgeRefusals(now: number): Promise<number> {
    if (now < nextRefusalPurge) return 0;
    const cutoff = now - deps.refusalRetentionMs;
    const deleted = await deps.store.write((t) => op(t.refusals.purge(cutoff, REFUSAL_CHUNK)), BACKGROUND);
    nextRefusalPurge = now + (deleted < REFUSAL_CHUNK ? EVERY_MS : REFUSAL_PAUSE_MS);
    return deleted;
  }

  return {
    /** Deletes one chunk of expired keys (and of old refusals) when due; a full chunk of keys means more remain (so: busy). */
    async runOnce(): Promise<number> {
      const now = deps.clock();
      const refusals = await purgeRefusals(now);
      if (now - lastFinished < EVERY_MS) return refusals;
      const deleted = await deps.store.write(function* (t) {
        yield* op(t.pausedEndpoints.purgeEndedBefore(now - STALE_PAUSE_MS));
        const counters = yield* op(t.capUsage.purgeEnded(now, CHUNK));
        return Math.max(counters, yield* op(t.idempotencyKeys.purge(now - IDEMPOTENCY_TTL_MS, CHUNK)));
      }, BACKGROUND);
      if (deleted < CHUNK) lastFinished = now;
      return deleted + refusals;
    },
  };
}
