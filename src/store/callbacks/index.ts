// The callback queue and its attempts. A callback is written with its lead (held), released for
// delivery when the lead is decided (pending), leased by a worker (locked_until + claim_token) and
// moved on by each attempt (pending again, delivered or dead), every outcome only by the holder of
// the current token; an expired lease makes the row claimable again, which is how deliveries
// interrupted by a crash are retried (at least once, same id). An operator may replay a dead or
// delivered one. Every attempt is kept as history, one row each.
import type { CallbackFilter } from "./search.ts";
import type { SigningSecrets } from "../vendors/index.ts";
import type { Op } from "../../db/script.ts";
import type { CallbackStatus } from "../../db/schema.ts";
import type { StoredRow } from "../leads/index.ts";

/** With the vendor's signing secrets as the claim read them (callbacks/signing-secrets.ts decides which sign). */
export interface DueCallback extends SigningSecrets {
  id: string;
  leadId: string;
  vendorId: string;
  url: string;
  payload: string;
  /** Attempts since it was last queued (decided or replayed): its retry schedule's step, not its total. */
  attemptCount: number;
}

export interface AttemptRecord {
  startedAt: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseExcerpt: string | null;
}

/** What happens to the callback after an attempt. */
export type NextStep = { kind: "delivered" } | { kind: "retry"; at: number } | { kind: "dead" };

export interface QueueDepth {
  pending: number;
  due: number;
  /** When the oldest pending callback's lead was decided; null when none is pending. */
  oldestDecidedAt: number | null;
}

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
  /** When an operator discarded it (dead callbacks only). */
  discarded_at: number | null;
}

export type StoredCallback = StoredRow & { id: string; status: CallbackStatus };

export interface CallbackAttempt {
  attempt_no: number;
  started_at: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface CallbacksTable {
  /** Stores a lead's callback, held until the lead is decided. `id` is its webhook-id. */
  hold(callback: { id: string; leadId: string; vendorId: string; url: string }, now: number): Op<void>;
  /** A held callback becomes due now, with the body every attempt will send. */
  release(leadId: string, payload: string, now: number): Op<void>;
  /** Leases up to `limit` due callbacks to `token`, oldest due first. */
  claimDue(now: number, limit: number, leaseMs: number, token: string): Op<DueCallback[]>;
  /**
   * Records an attempt and moves the callback on. The attempt is history and is always kept; the
   * callback changes only if `token` still holds its lease (answers whether it did).
   */
  recordAttempt(callback: Pick<DueCallback, "id" | "leadId">, token: string, attempt: AttemptRecord, next: NextStep, now: number): Op<boolean>;
  /** Gives a leased callback back unsent, due again at `at` (no attempt made); false if `token` no longer holds it. */
  putBack(leadId: string, token: string, at: number): Op<boolean>;
  /**
   * Queues a lead's dead or delivered callback again with a fresh schedule (its attempts so far
   * stay counted); false if it is neither.
   */
  replay(leadId: string, now: number): Op<boolean>;
  /**
   * A lead's pending callback becomes due now (its schedule otherwise unchanged); false if it is
   * not pending, or an attempt is under way (leased).
   */
  retryNow(leadId: string, now: number): Op<boolean>;
  depth(now: number): Op<QueueDepth>;
  /** How many dead callbacks no operator has discarded (read from their partial index). */
  countDead(): Op<number>;
  /**
   * A dead callback is acknowledged: it stays dead (and can still be replayed) but no longer
   * counts as waiting; false if it is not dead or was already discarded.
   */
  discard(leadId: string, now: number): Op<boolean>;
  /** A page of the listing a filter makes (search.ts gives each status's order), with the vendor's name. */
  list(filter: CallbackFilter): Op<CallbackSummary[]>;
  /** How many callbacks a filter selects, counted up to `cap` (a count of them all can take a while). */
  countUpTo(filter: Omit<CallbackFilter, "limit" | "after">, cap: number): Op<number>;
  /** A callback found by its lead's id or else by its own id (the webhook-id; a scan). */
  find(id: string): Op<{ id: string; leadId: string; status: CallbackStatus } | null>;
  /** The leads of the callbacks dead since `since` (updated_at: when their last attempt failed), discarded ones left out. */
  deadSince(since: number): Op<string[]>;
  /** A lead's callback, every stored column but the key, and its attempts in order. */
  detailOf(leadId: string): Op<{ callback: StoredCallback; attempts: CallbackAttempt[] } | null>;
}
