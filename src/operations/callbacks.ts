// What an operator reads and does about callbacks: list them, and queue dead or delivered ones
// again. Replays go through the callback table's own replay, so a replayed callback is exactly
// what the worker expects: pending, due now, a fresh schedule, the same webhook-id.
import { op, type Script } from "../db/script.ts";
import type { CallbackStatus } from "../db/schema.ts";
import type { CallbackSummary } from "../store/callbacks/index.ts";
import { auditedChange, auditEntry } from "../store/audit/index.ts";
import type { Store, Tables } from "../store/index.ts";
import { leadDetail, type LeadDetail } from "./leads.ts";

export type { CallbackSummary } from "../store/callbacks/index.ts";

/** Most recently changed first: the callbacks that just died or were just delivered lead. */
export async function listCallbacks(store: Store, filter: { status?: CallbackStatus; limit: number }): Promise<CallbackSummary[]> {
  return store.read((t) => op(t.callbacks.list(filter)));
}

function* callbackDetail(t: Tables, id: string): Script<LeadDetail | null> {
  const callback = yield* op(t.callbacks.find(id));
  return callback ? yield* leadDetail(t, callback.leadId) : null;
}

/** A callback found by its id (the webhook-id) or its lead's id, with its lead and every attempt, from one snapshot. */
export async function findCallbackDetail(store: Store, id: string): Promise<LeadDetail | null> {
  return store.read((t) => callbackDetail(t, id));
}

export type ReplayOutcome =
  | { kind: "replayed"; callbackId: string }
  | { kind: "missing" }
  | { kind: "notFinished"; callbackId: string; status: CallbackStatus };

/** Queues one dead or delivered callback again, found by its id (the webhook-id) or its lead's id; audited under its lead. */
export async function replayCallback(store: Store, id: string, actor: string, now: number): Promise<ReplayOutcome> {
  // Found before any write lock is taken: by lead through the key, else by webhook-id with a scan
  // (not indexed; one operator command can afford it). The replay itself re-checks the status.
  const callback = await store.read((t) => op(t.callbacks.find(id)));
  if (!callback) return { kind: "missing" };
  const audit = auditEntry({ actor, action: "callback.replay", subject: callback.leadId }, now);
  if (!(await store.write((t) => auditedChange(t.callbacks.replay(callback.leadId, now), t.audit, audit))))
    return { kind: "notFinished", callbackId: callback.id, status: callback.status };
  return { kind: "replayed", callbackId: callback.id };
}

export type RetryOutcome = { kind: "retried"; callbackId: string } | { kind: "missing" } | { kind: "notPending"; callbackId: string; status: CallbackStatus };

/**
 * A pending callback, found by its id (the webhook-id) or its lead's id, is sent at the worker's
 * next poll instead of at its scheduled time. The write re-checks that it is pending and not in
 * flight; the status reported when it is not is the one read before.
 */
export async function retryCallbackNow(store: Store, id: string, actor: string, now: number): Promise<RetryOutcome> {
  const callback = await store.read((t) => op(t.callbacks.find(id)));
  if (!callback) return { kind: "missing" };
  const audit = auditEntry({ actor, action: "callback.retry", subject: callback.leadId }, now);
  if (await store.write((t) => auditedChange(t.callbacks.retryNow(callback.leadId, now), t.audit, audit))) return { kind: "retried", callbackId: callback.id };
  return { kind: "notPending", callbackId: callback.id, status: callback.status };
}

function* replayDead(t: Tables, diedSince: number | null, actor: string, now: number): Script<number> {
  let replayed = 0;
  for (const leadId of yield* op(t.callbacks.deadSince(diedSince ?? Number.MIN_SAFE_INTEGER))) {
    if (yield* op(t.callbacks.replay(leadId, now))) replayed++;
  }
  const since = diedSince === null ? "" : ` (died since ${new Date(diedSince).toISOString()})`;
  if (replayed > 0)
    yield* op(t.audit.append(auditEntry({ actor, action: "callback.replay-dead", subject: "dead callbacks", detail: `${replayed} queued${since}` }, now)));
  return replayed;
}

/**
 * Queues every dead callback again, or those that died at or after `diedSince` (a dead
 * callback's updated_at is when its last attempt failed). Returns how many were queued.
 */
export async function replayDeadCallbacks(store: Store, diedSince: number | null, actor: string, now: number): Promise<number> {
  return store.write((t) => replayDead(t, diedSince, actor, now));
}
