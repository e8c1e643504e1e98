// What an operator reads and does about callbacks: list them, and queue dead or delivered ones
// again. Replays go through the callback table's own replay, so a replayed callback is exactly
// what the worker expects: pending, due now, a fresh schedule, the same webhook-id.
import { op, type Script } from "../db/script.ts";
import type { CallbackStatus } from "../db/schema.ts";
import type { CallbackSummary } from "../store/callbacks/index.ts";
import { auditedChange, auditEntry, type AuditEntry } from "../store/audit/index.ts";
import { cursorAfter, type CallbackCursor, type CallbackFilter } from "../store/callbacks/search.ts";
import type { Store, Tables } from "../store/index.ts";
import type { PausedEndpointView } from "../store/paused-endpoints/index.ts";
import { leadDetail, type LeadDetail } from "./leads.ts";

export type { CallbackSummary } from "../store/callbacks/index.ts";
export type { CallbackCursor, CallbackFilter } from "../store/callbacks/search.ts";
export type { PausedEndpointView } from "../store/paused-endpoints/index.ts";
export { cursorAfter } from "../store/callbacks/search.ts";

/** A page of callbacks: dead ones most recently died first, pending ones next due first, others newest lead first. */
export async function listCallbacks(store: Store, filter: CallbackFilter): Promise<CallbackSummary[]> {
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

export type DiscardOutcome = { kind: "discarded"; callbackId: string } | { kind: "missing" } | { kind: "notDead"; callbackId: string; status: CallbackStatus };

/**
 * An operator acknowledges a dead callback (found by its id or its lead's id): it stays dead and
 * can still be replayed, but no longer counts as waiting for them (/metrics, its alert) nor is
 * queued by a replay of every dead one. Audited under its lead. "notDead" also when it was
 * discarded already (the status then reads dead).
 */
export async function discardCallback(store: Store, id: string, actor: string, now: number): Promise<DiscardOutcome> {
  const callback = await store.read((t) => op(t.callbacks.find(id)));
  if (!callback) return { kind: "missing" };
  const audit = auditEntry({ actor, action: "callback.discard", subject: callback.leadId }, now);
  if (await store.write((t) => auditedChange(t.callbacks.discard(callback.leadId, now), t.audit, audit))) return { kind: "discarded", callbackId: callback.id };
  return { kind: "notDead", callbackId: callback.id, status: callback.status };
}

/** The endpoints paused by an open circuit, soonest tried again first (callbacks/pauses.ts writes them). */
export async function listPausedEndpoints(store: Store): Promise<PausedEndpointView[]> {
  return store.read((t) => op(t.pausedEndpoints.list()));
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

/** Replays the callbacks of these leads that are dead or delivered; answers how many. */
function* replayEach(t: Tables, leadIds: string[], now: number): Script<number> {
  let replayed = 0;
  for (const leadId of leadIds) {
    if (yield* op(t.callbacks.replay(leadId, now))) replayed++;
  }
  return replayed;
}

/**
 * Replays these leads' callbacks and, when the whole replay (`earlier` of it queued in writes
 * before this one) queued any, appends its entry naming the total, in this transaction.
 */
function* replayAudited(t: Tables, leadIds: string[], earlier: number, entryFor: (total: number) => AuditEntry, now: number): Script<number> {
  const replayed = yield* replayEach(t, leadIds, now);
  if (earlier + replayed > 0) yield* op(t.audit.append(entryFor(earlier + replayed)));
  return replayed;
}

function* replayDead(t: Tables, diedSince: number | null, actor: string, now: number): Script<number> {
  const since = diedSince === null ? "" : ` (died since ${new Date(diedSince).toISOString()})`;
  const entryFor = (total: number) => auditEntry({ actor, action: "callback.replay-dead", subject: "dead callbacks", detail: `${total} queued${since}` }, now);
  return yield* replayAudited(t, yield* op(t.callbacks.deadSince(diedSince ?? Number.MIN_SAFE_INTEGER)), 0, entryFor, now);
}

/**
 * Queues every dead callback again, or those that died at or after `diedSince` (a dead
 * callback's updated_at is when its last attempt failed). Returns how many were queued.
 */
export async function replayDeadCallbacks(store: Store, diedSince: number | null, actor: string, now: number): Promise<number> {
  return store.write((t) => replayDead(t, diedSince, actor, now));
}

/** How many callbacks a filter selects, up to `cap`: what a replay of them would queue. */
export async function countCallbacks(store: Store, filter: Omit<CallbackFilter, "limit" | "after">, cap: number): Promise<number> {
  return store.read((t) => op(t.callbacks.countUpTo(filter, cap)));
}

/** Callbacks replayed per write transaction: the service's other writers wait for one chunk at most. */
const REPLAY_CHUNK = 1_000;

/**
 * Queues again every dead or delivered callback a filter selects (every page of it, not one), a
 * chunk per write transaction, walking the listing's keyset: a replayed callback leaves a dead
 * listing, and one delivered again is behind the cursor, so none is replayed twice. Audited once,
 * as `subject` with the count, in the last chunk's transaction (an entry per chunk would fill the
 * audit page); a crash between chunks leaves the earlier ones queued without an entry. Returns how many.
 */
export async function replaySelectedCallbacks(
  store: Store,
  filter: Omit<CallbackFilter, "limit" | "after"> & { status: "dead" | "delivered" },
  subject: string,
  actor: string,
  now: number,
): Promise<number> {
  const entryFor = (total: number) => auditEntry({ actor, action: "callback.replay-selected", subject, detail: `${total} queued` }, now);
  let replayed = 0;
  let after: CallbackCursor | undefined;
  for (;;) {
    const chunk = await listCallbacks(store, { ...filter, after, limit: REPLAY_CHUNK });
    const leadIds = chunk.map((callback) => callback.lead_id);
    const last = chunk.length < REPLAY_CHUNK;
    const earlier = replayed;
    if (last) return earlier + (await store.write((t) => replayAudited(t, leadIds, earlier, entryFor, now)));
    replayed += await store.write((t) => replayEach(t, leadIds, now));
    after = cursorAfter(filter, chunk.at(-1)!);
  }
}
