// The policy's caps at intake (docs/contract.md §10 "Caps"): counted by the database, in the
// transaction that stores the lead or answers the prePing (store/cap-usage/). They come last
// (docs/contract.md §2): a lead refused for any other reason, a key's replay and a re-post are
// answered before a slot is taken. A full cap rolls the whole transaction back, so the lead is not
// stored and no slot of another cap is kept.
import { op, type Script } from "../db/script.ts";
import type { Tables } from "../store/index.ts";
import type { CapToTake, RefusedBy } from "./policy-port.ts";

/** Refused by full caps: each full cap's reason in the document's order, and when to retry. */
export interface Capped {
  kind: "capped";
  reasons: readonly string[];
  /**
   * Seconds until the latest of the full caps' windows ends: before then, at least one of them
   * would still refuse (a request needs a slot of every cap in its scope).
   */
  retryAfterSeconds: number;
  /** The full caps by name: the refusal log's and the metrics' names. */
  refusedBy: readonly RefusedBy[];
}

export function cappedBy(full: readonly CapToTake[]): Capped {
  return {
    kind: "capped",
    reasons: full.map((cap) => cap.reason),
    retryAfterSeconds: Math.max(...full.map((cap) => cap.retryAfterSeconds)),
    refusedBy: full.map((cap) => ({ kind: "cap", name: cap.name })),
  };
}

/** Thrown inside a write script to roll its transaction back; the caller answers its outcome. */
export class CapsFull extends Error {
  override name = "CapsFull";
  constructor(readonly outcome: Capped) {
    super(`caps full: ${outcome.reasons.join("; ")}`);
  }
}

/**
 * Takes a slot of each cap, in the document's order (so two transactions lock the same counters in
 * the same order); every cap is tried, so that the refusal names each full one. Throws CapsFull when
 * one is full: the transaction, slots taken included, is rolled back.
 */
export function* takeCaps(t: Tables, caps: readonly CapToTake[]): Script<void> {
  let full: CapToTake[] | undefined;
  for (const cap of caps) if (!(yield* op(t.capUsage.take(cap)))) (full ??= []).push(cap);
  if (full) throw new CapsFull(cappedBy(full));
}

/** The answer of a write that may throw CapsFull: its outcome instead of the error. */
export const answeringCaps = <T>(write: Promise<T>): Promise<T | Capped> =>
  write.catch((error: unknown) => {
    if (error instanceof CapsFull) return error.outcome;
    throw error;
  });

/**
 * prePing's count (docs/contract.md §10 "prePing"): refused without a write when a `leads` cap in
 * scope is full (a postLead would be), else a slot of each `pings` cap is taken (throws CapsFull
 * when one is full). Null: nothing refuses.
 */
export function* pingCaps(t: Tables, leads: readonly CapToTake[], pings: readonly CapToTake[]): Script<Capped | null> {
  const full = yield* fullCaps(t, leads);
  if (full) return full;
  yield* takeCaps(t, pings);
  return null;
}

/** By a read: the refusal of the caps among `caps` that are full now, or null when each has room. */
export function* fullCaps(t: Tables, caps: readonly CapToTake[]): Script<Capped | null> {
  const full = yield* fullAmong(t, caps);
  return full.length > 0 ? cappedBy(full) : null;
}

/** By a read: the caps among `caps` that are full now, in their order. */
export function* fullAmong<Cap extends CapToTake>(t: Tables, caps: readonly Cap[]): Script<Cap[]> {
  const full: Cap[] = [];
  for (const cap of caps) if ((yield* op(t.capUsage.used(cap))) >= cap.max) full.push(cap);
  return full;
}

/**
 * Whether a lead counts against caps, and so may not take PostgreSQL's batched one-statement intake
 * (backend/pg-intake.ts), whose statement does not take slots: such a lead runs its own script.
 */
export const takesCapSlots = (caps: readonly CapToTake[]): boolean => caps.length > 0;
