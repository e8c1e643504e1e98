// The policy's caps at intake (docs/contract.md §10 "Caps"): counted by the database, in the
// transaction that stores the lead or answers the prePing (store/cap-usage/). They come last
// (docs/contract.md §2): a lead refused for any other reason, a key's replay and a re-post are
// answered before a slot is taken. A full cap rolls the whole transaction back, so the lead is not
// stored and no slot of another cap is kept.
import { op, type Script } from "../db/script.ts";
import { keyOfCounter } from "../store/cap-usage/index.ts";
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
  /** The full caps' counters, for FullCountersSeen. */
  full: readonly CapToTake[];
}

export function cappedBy(full: readonly CapToTake[]): Capped {
  return {
    kind: "capped",
    reasons: full.map((cap) => cap.reason),
    retryAfterSeconds: Math.max(...full.map((cap) => cap.retryAfterSeconds)),
    refusedBy: full.map((cap) => ({ kind: "cap", name: cap.name })),
    full,
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
 * The order every writer takes counters in, a lead's script here and PostgreSQL's batch statement
 * (store/batches/pg-intake.ts) alike: by cap name, bucket, window. One order, so that two
 * transactions (on two instances) never each hold a counter the other waits for.
 */
export const counterOrder = (a: CapToTake, b: CapToTake): number =>
  a.name < b.name ? -1 : a.name > b.name ? 1 : a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : a.windowStart - b.windowStart;

/**
 * Takes a slot of each cap, in counterOrder; every cap is tried, so that the refusal names each full
 * one, in the document's order. Throws CapsFull when one is full: the transaction, slots taken
 * included, is rolled back.
 */
export function* takeCaps(t: Tables, caps: readonly CapToTake[]): Script<void> {
  let full: Set<CapToTake> | undefined;
  for (const cap of inCounterOrder(caps)) if (!(yield* op(t.capUsage.take(cap)))) (full ??= new Set()).add(cap);
  if (full) throw new CapsFull(cappedBy(caps.filter((cap) => full.has(cap))));
}

/** Lists of caps in counterOrder, by the list as given: the policy hands out one list per scope and second, so a lead's is usually sorted already. */
const sorted = new WeakMap<readonly CapToTake[], readonly CapToTake[]>();

function inCounterOrder(caps: readonly CapToTake[]): readonly CapToTake[] {
  if (caps.length < 2) return caps;
  let inOrder = sorted.get(caps);
  if (inOrder === undefined) sorted.set(caps, (inOrder = [...caps].sort(counterOrder)));
  return inOrder;
}

/** The answer of a write that may throw CapsFull: its outcome instead of the error, told to `onCapped` first. */
export const answeringCaps = <T>(write: Promise<T>, onCapped?: (capped: Capped) => void): Promise<T | Capped> =>
  write.catch((error: unknown) => {
    if (!(error instanceof CapsFull)) throw error;
    onCapped?.(error.outcome);
    return error.outcome;
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
  return cappedAmong(caps, yield* usedOf(t, caps));
}

/** By a read: the caps among `caps` that are full now, in their order. */
export function* fullAmong<Cap extends CapToTake>(t: Tables, caps: readonly Cap[]): Script<Cap[]> {
  return fullOf(caps, yield* usedOf(t, caps));
}

/** The refusal of the caps among `caps` whose slots taken (`used`, in their order) reach their max, or null. */
export function cappedAmong(caps: readonly CapToTake[], used: readonly number[]): Capped | null {
  const full = fullOf(caps, used);
  return full.length > 0 ? cappedBy(full) : null;
}

const fullOf = <Cap extends CapToTake>(caps: readonly Cap[], used: readonly number[]): Cap[] => caps.filter((cap, i) => (used[i] ?? 0) >= cap.max);

function* usedOf(t: Tables, caps: readonly CapToTake[]): Script<number[]> {
  const used: number[] = [];
  for (const cap of caps) used.push(yield* op(t.capUsage.used(cap)));
  return used;
}

/** Enough for every vendor's counter of several `each` caps; past it, the ended windows go first. */
const SEEN_LIMIT = 4_096;

/**
 * The counters this process saw full, by a refusal. A counter's use never goes down within its
 * window (no slot is ever given back, docs/contract.md §10), so a counter seen full at max M stays
 * full for any max up to M until its window ends: knowing it is exact on every instance, without
 * asking the database. A lead in scope of one is refused by a read; any other lead goes straight
 * to its write, whose statement takes the slots or refuses (and that refusal is recorded here). So
 * a lead pays no read before its write, and a full cap costs one failed write per instance.
 */
export class FullCountersSeen {
  readonly #seen = new Map<string, { max: number; windowEnd: number }>();

  /** Records the full caps of a refusal (a committed write's or a read's answer). */
  record(capped: Capped, now: number): void {
    if (this.#seen.size >= SEEN_LIMIT) this.#forgetEnded(now);
    for (const cap of capped.full) {
      const key = keyOfCounter(cap);
      this.#seen.set(key, { max: Math.max(cap.max, this.#seen.get(key)?.max ?? 0), windowEnd: cap.windowEnd });
    }
  }

  /** Whether one of `caps` (in their current windows) was seen full at its max or above. */
  anyFull(caps: readonly CapToTake[]): boolean {
    if (this.#seen.size === 0) return false;
    for (const cap of caps) if (cap.max <= (this.#seen.get(keyOfCounter(cap))?.max ?? -1)) return true;
    return false;
  }

  #forgetEnded(now: number): void {
    for (const [key, seen] of this.#seen) if (seen.windowEnd <= now) this.#seen.delete(key);
    if (this.#seen.size >= SEEN_LIMIT) this.#seen.clear();
  }
}
