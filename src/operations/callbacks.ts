// What an operator reads and does about callbacks: list them, and queue dead or delivered ones
// again. Replays go through the callback table's own replay, so a replayed callback is exactly
// what the worker expects: pending, due now, a fresh schedule, the same webhook-id.
import { op, type Script } from "../db/script.ts";
import type { CallbackStatus } from "../db/schema.ts";
import type { CallbackSummary } from "../store/callbacks/index.ts";
import type { Tables } from "../store/index.ts";
import { storeOn, type Connection } from "../store/sqlite.ts";

export type { CallbackSummary } from "../store/callbacks/index.ts";

/** Most recently changed first: the callbacks that just died or were just delivered lead. */
export function listCallbacks(connection: Connection, filter: { status?: CallbackStatus; limit: number }): CallbackSummary[] {
  return storeOn(connection).read((t) => op(t.callbacks.list(filter)));
}

export type ReplayOutcome =
  | { kind: "replayed"; callbackId: string }
  | { kind: "missing" }
  | { kind: "notFinished"; callbackId: string; status: CallbackStatus };

/** Queues one dead or delivered callback again, found by its id (the webhook-id) or its lead's id. */
export function replayCallback(connection: Connection, id: string, now: number): ReplayOutcome {
  const store = storeOn(connection);
  // Found before any write lock is taken: by lead through the key, else by webhook-id with a scan
  // (not indexed; one operator command can afford it). The replay itself re-checks the status.
  const callback = store.read((t) => op(t.callbacks.find(id)));
  if (!callback) return { kind: "missing" };
  if (!store.write((t) => op(t.callbacks.replay(callback.leadId, now)))) return { kind: "notFinished", callbackId: callback.id, status: callback.status };
  return { kind: "replayed", callbackId: callback.id };
}

function* replayDead(t: Tables, diedSince: number | null, now: number): Script<number> {
  let replayed = 0;
  for (const leadId of yield* op(t.callbacks.deadSince(diedSince ?? Number.MIN_SAFE_INTEGER))) {
    if (yield* op(t.callbacks.replay(leadId, now))) replayed++;
  }
  return replayed;
}

/**
 * Queues every dead callback again, or those that died at or after `diedSince` (a dead
 * callback's updated_at is when its last attempt failed). Returns how many were queued.
 */
export function replayDeadCallbacks(connection: Connection, diedSince: number | null, now: number): number {
  return storeOn(connection).write((t) => replayDead(t, diedSince, now));
}
