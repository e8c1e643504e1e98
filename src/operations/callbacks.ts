// What an operator reads and does about callbacks: list them, and queue dead or delivered ones
// again. Replays go through the callback queue's own replay, so a replayed callback is exactly
// what the worker expects: pending, due now, a fresh schedule, the same webhook-id.
import type { Database } from "bun:sqlite";
import { createCallbackQueue } from "../callbacks/queue.ts";
import { leadKey, type CallbackStatus } from "../db/schema.ts";

export interface CallbackSummary {
  id: string;
  lead_id: string;
  vendor: string;
  url: string;
  status: CallbackStatus;
  attempt_count: number;
  next_attempt_at: number | null;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  delivered_at: number | null;
}

/** Most recently changed first: the callbacks that just died or were just delivered lead. */
export function listCallbacks(sqlite: Database, filter: { status?: CallbackStatus; limit: number }): CallbackSummary[] {
  return sqlite
    .query<CallbackSummary, [string | null, number]>(`
      SELECT c.id, c.lead_id, v.name AS vendor, c.url, c.status, c.attempt_count, c.next_attempt_at, c.last_error,
             c.created_at, c.updated_at, c.delivered_at
      FROM callbacks c JOIN vendors v ON v.id = c.vendor_id
      WHERE ?1 IS NULL OR c.status = ?1
      ORDER BY c.updated_at DESC, c.id DESC LIMIT ?2`)
    .all(filter.status ?? null, filter.limit);
}

export type ReplayOutcome =
  | { kind: "replayed"; callbackId: string }
  | { kind: "missing" }
  | { kind: "notFinished"; callbackId: string; status: CallbackStatus };

/** Queues one dead or delivered callback again, found by its id (the webhook-id) or its lead's id. */
export function replayCallback(sqlite: Database, id: string, now: number): ReplayOutcome {
  // Found before any write lock is taken: by lead through the key, else by webhook-id with a scan
  // (not indexed; one operator command can afford it). The replay itself re-checks the status.
  type Found = { id: string; lead_id: string; status: CallbackStatus };
  const callback =
    sqlite.query<Found, [bigint, string]>("SELECT id, lead_id, status FROM callbacks WHERE lead_key = ? AND lead_id = ?").get(leadKey(id), id) ??
    sqlite.query<Found, [string]>("SELECT id, lead_id, status FROM callbacks WHERE id = ?").get(id);
  if (!callback) return { kind: "missing" };
  if (!createCallbackQueue(sqlite).replay(callback.lead_id, now)) return { kind: "notFinished", callbackId: callback.id, status: callback.status };
  return { kind: "replayed", callbackId: callback.id };
}

/**
 * Queues every dead callback again, or those that died at or after `diedSince` (a dead
 * callback's updated_at is when its last attempt failed). Returns how many were queued.
 */
export function replayDeadCallbacks(sqlite: Database, diedSince: number | null, now: number): number {
  const queue = createCallbackQueue(sqlite);
  const replay = sqlite.transaction(() => {
    const dead = sqlite
      .query<{ lead_id: string }, [number]>("SELECT lead_id FROM callbacks WHERE status = 'dead' AND updated_at >= ?")
      .all(diedSince ?? Number.MIN_SAFE_INTEGER);
    return dead.filter((callback) => queue.replay(callback.lead_id, now)).length;
  });
  return replay.immediate();
}
