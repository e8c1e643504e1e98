// The requests of one turn of the event loop, handed to the database together: PostgreSQL's group
// commit at the application's level (backend/pg-intake.ts). A round trip to the server costs a
// backend wake-up on the cores the service shares with it, so N requests in one statement cost
// little more than one.

import { DatabaseWaitTimeout } from "./bounded-waits.ts";

/** A request waiting for its batch, and how to answer it. */
export interface Waiting<I, O> {
  item: I;
  resolve: (outcome: O) => void;
  reject: (error: unknown) => void;
}

export interface BatchLimits {
  /** Items per batch at most (a statement's parameters stay small). */
  maxBatch: number;
  /**
   * Batches on their way at once. While they are, new requests gather for the next: the database
   * works on one batch while the event loop answers another's requests.
   */
  maxInFlight: number;
}

/**
 * `submit(item)` answers when the batch the item went into has answered it: `run` gets the items
 * gathered up to the end of the turn (or while `maxInFlight` batches were on their way) and must
 * settle each; its promise ends when the batch no longer holds the database. When it rejects,
 * with a DatabaseWaitTimeout the requests still gathering are rejected too.
 */
export function turnBatches<I, O>(run: (batch: Waiting<I, O>[]) => Promise<void>, limits: BatchLimits): (item: I) => Promise<O> {
  let waiting: Waiting<I, O>[] = [];
  let scheduled = false;
  let inFlight = 0;

  function flush() {
    scheduled = false;
    while (waiting.length > 0 && inFlight < limits.maxInFlight) {
      const batch = waiting.length <= limits.maxBatch ? waiting : waiting.slice(0, limits.maxBatch);
      waiting = batch === waiting ? [] : waiting.slice(limits.maxBatch);
      inFlight++;
      void run(batch)
        .catch((error: unknown) => {
          for (const w of batch) w.reject(error); // settling twice is a no-op for the settled
          // The database did not answer within the wait's bound: the requests gathered behind
          // this batch would wait as long again, so they get the same answer now.
          if (error instanceof DatabaseWaitTimeout) {
            for (const w of waiting) w.reject(error);
            waiting = [];
          }
        })
        .finally(() => {
          inFlight--;
          schedule();
        });
    }
  }

  function schedule() {
    if (scheduled || waiting.length === 0 || inFlight >= limits.maxInFlight) return;
    scheduled = true;
    setImmediate(flush);
  }

  return (item) =>
    new Promise<O>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
}
