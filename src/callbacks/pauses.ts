// Records the circuits that open and close (endpoints.ts) in the paused_endpoints table, so the
// CLI, the console and /metrics, which do not share the worker's memory, see what is paused and
// until when. Only transitions are written, never a delivery, and in the background: changes
// noted while a write is under way are merged (the latest per endpoint wins) into the next one.
import { BACKGROUND } from "../db/group-commit.ts";
import { op } from "../db/script.ts";
import type { Logger } from "../log/index.ts";
import type { Answering, Store } from "../store/index.ts";
import type { EndpointChange } from "./endpoints.ts";

export function createPauseRecorder(deps: { store: Store<Answering, "promise">; log: Logger }) {
  const waiting = new Map<string, EndpointChange>();
  let writing: Promise<void> | null = null;

  async function writeAll(): Promise<void> {
    while (waiting.size > 0) {
      const changes = [...waiting.values()];
      waiting.clear();
      try {
        await deps.store.write(function* (t) {
          for (const { endpoint, pausedUntil, failures, lastError, now } of changes) {
            if (pausedUntil === null) yield* op(t.pausedEndpoints.resume(endpoint.key));
            else {
              const row = { endpoint: endpoint.key, vendorId: endpoint.vendorId, target: endpoint.target, failures, lastError, pausedAt: now, pausedUntil };
              yield* op(t.pausedEndpoints.pause(row));
            }
          }
        }, BACKGROUND);
      } catch (error) {
        // What operators see is late, not wrong for long: the next transition writes again.
        deps.log.warn("callback_pause_not_recorded", { endpoints: changes.length, error: String(error) });
      }
    }
  }

  function kick(): void {
    if (writing) return;
    writing = writeAll().finally(() => {
      writing = null;
      if (waiting.size > 0) kick();
    });
  }

  return {
    note(change: EndpointChange): void {
      waiting.set(change.endpoint.key, change);
      kick();
    },
    /** Resolves once every change noted so far is written (or failed). */
    settled: async (): Promise<void> => {
      while (writing) await writing;
    },
  };
}
