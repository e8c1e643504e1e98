// SQLite's cap counters within one group-commit batch (db/batch.ts TransactionParticipant). A
// batch's leads would each update the same few counter rows, three statements per lead for three
// caps; instead the batch reads each counter it touches once, counts its slots here, and writes
// each counter once, just before COMMIT. It is as exact as a statement per slot: the batch holds
// SQLite's write lock from BEGIN IMMEDIATE to COMMIT, so no other writer (process or connection)
// can change a counter between the read and the write, and a write's savepoint undone (its lead
// refused by a full cap, or failed) gives its slots back here as SQLite gives its rows back.
import type { TransactionParticipant } from "../../db/batch.ts";
import { type CapCounter, keyOfCounter } from "./index.ts";

interface Touched {
  counter: Omit<CapCounter, "max">;
  /** The count committed before this batch (0 when no row). */
  stored: number;
}

/** The counter's row: read once per batch; written with the batch's count. */
export interface CounterRows {
  read(counter: Omit<CapCounter, "max" | "windowEnd">): number;
  write(counter: Omit<CapCounter, "max">, used: number): void;
}

export interface CapTally extends TransactionParticipant {
  /** Whether a batch's transaction is open: only then are slots counted here. */
  readonly active: boolean;
  /** Takes a slot while the counter is below its max: the count after, or null when full. */
  take(counter: CapCounter): number | null;
  /** The counter's count in this batch so far. */
  used(counter: Omit<CapCounter, "max" | "windowEnd">): number;
}

export function capTally(rows: CounterRows): CapTally {
  let active = false;
  /** Every counter touched in this transaction, as read. */
  const touched = new Map<string, Touched>();
  /** The batch's count of each counter touched, slots of undone writes excluded. */
  let counts = new Map<string, number>();
  /** The counts at each open savepoint, innermost last. */
  const marks: Map<string, number>[] = [];

  const countOf = (key: string, counter: Omit<CapCounter, "max">): number => {
    const counted = counts.get(key);
    if (counted !== undefined) return counted;
    let first = touched.get(key);
    if (first === undefined) {
      first = { counter, stored: rows.read(counter) };
      touched.set(key, first);
    }
    return first.stored;
  };

  return {
    get active() {
      return active;
    },
    take(counter) {
      const key = keyOfCounter(counter);
      const used = countOf(key, counter);
      if (used >= counter.max) return null;
      counts.set(key, used + 1);
      return used + 1;
    },
    used(counter) {
      const key = keyOfCounter(counter);
      return counts.get(key) ?? touched.get(key)?.stored ?? rows.read(counter);
    },
    begin() {
      active = true;
    },
    mark() {
      marks.push(new Map(counts));
    },
    undo() {
      counts = marks.pop() ?? new Map();
    },
    keep() {
      marks.pop();
    },
    beforeCommit() {
      for (const [key, used] of counts) {
        const first = touched.get(key)!;
        if (used !== first.stored) rows.write(first.counter, used);
      }
    },
    end() {
      active = false;
      touched.clear();
      counts.clear();
      marks.length = 0;
    },
  };
}
