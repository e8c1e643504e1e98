// The cap counters (db/cap-usage-schema.ts): how many requests each cap counted in each of its
// calendar windows. Intake takes a slot with one atomic statement in the transaction that stores
// the lead (or answers the prePing), so the count is exact under concurrency on both databases and
// across instances: the row's lock (PostgreSQL) or the write lock (SQLite) orders the takers, and
// each sees the count the one before left.
import type { Op } from "../../db/script.ts";

/** One counter: a cap's bucket in one window, and the cap's max. */
export interface CapCounter {
  /** The cap's name. */
  name: string;
  /** The vendor's name or the folded campaign of an `each` cap; "" for a cap counted together. */
  bucket: string;
  windowStart: number;
  windowEnd: number;
  max: number;
  /** counterKeyOf(name, bucket, windowStart), when the caller keeps it (the policy's slots do). */
  counterKey?: string;
}

/** A counter's identity as one text, for maps in memory (the SQLite tally, intake's counters seen full). */
export const counterKeyOf = (name: string, bucket: string, windowStart: number): string => `${name}\n${bucket}\n${windowStart}`;

/** The counter's key: kept on it, or made. */
export const keyOfCounter = (counter: Omit<CapCounter, "max" | "windowEnd">): string =>
  counter.counterKey ?? counterKeyOf(counter.name, counter.bucket, counter.windowStart);

export interface CapUse {
  capName: string;
  bucket: string;
  windowStart: number;
  used: number;
}

export interface CapUsageTable {
  /** Takes one slot when the counter is below its max; false (nothing changed) when it is full. One statement. */
  take(counter: CapCounter): Op<boolean>;
  /** The slots taken in the counter's window (0 when none). */
  used(counter: Omit<CapCounter, "max" | "windowEnd">): Op<number>;
  /** Every counter of the window starting at `windowStart` for cap `capName`, by bucket. */
  inWindow(capName: string, windowStart: number): Op<CapUse[]>;
  /** Forgets up to `limit` counters whose window ended at or before `now`; answers how many went. */
  purgeEnded(now: number, limit: number): Op<number>;
}
