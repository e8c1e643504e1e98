// Housekeeping the worker does between jobs: idempotency keys are kept for 24 h (docs/contract.md §6),
// then deleted in small chunks so no transaction holds the write lock for long; so are the cap
// counters of windows that ended (store/cap-usage/).
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

export function createMaintenanceJob(deps: { store: Store<Answering, "promise">; clock: () => number }) {
  let lastFinished = -Infinity;
  return {
    /** Deletes one chunk of expired keys when due; a full chunk means more remain (so: busy). */
    async runOnce(): Promise<number> {
      const now = deps.clock();
      if (now - lastFinished < EVERY_MS) return 0;
      const deleted = await deps.store.write(function* (t) {
        yield* op(t.pausedEndpoints.purgeEndedBefore(now - STALE_PAUSE_MS));
        const counters = yield* op(t.capUsage.purgeEnded(now, CHUNK));
        return Math.max(counters, yield* op(t.idempotencyKeys.purge(now - IDEMPOTENCY_TTL_MS, CHUNK)));
      }, BACKGROUND);
      if (deleted < CHUNK) lastFinished = now;
      return deleted;
    },
  };
}
