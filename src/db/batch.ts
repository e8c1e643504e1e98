// One group-commit batch as one transaction (group-commit.ts): every write, each answered with
// its own outcome. A write that throws is rolled back alone and rejects its own promise; the others
// still commit. Writes almost never throw, so a batch first runs them bare under one SAVEPOINT;
// only when one throws is that undone and the batch run again with a SAVEPOINT per write (two
// statements per write that the common case does not pay). So a write may run twice: it must touch
// nothing but the database (report what it did after its promise resolves). A failed COMMIT fails
// every write of the batch, so no caller is told "stored" for something that is not on disk.
//
// When another process holds the write lock, BEGIN fails fast (the service's busy timeout is
// short) and the batch is retried on a timer, so the event loop keeps serving; after
// `busyBudgetMs` it fails with SQLITE_BUSY (503 for HTTP callers).
import type { Database } from "bun:sqlite";

/** A write waiting for its batch, and how to answer its caller. */
export interface Pending {
  write: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export const rejectAll = (batch: Pending[], error: unknown) => batch.forEach((pending) => pending.reject(error));

/** Answers each write of a committed (and durable) batch with its own outcome. */
export const settle = (batch: Pending[], outcomes: Outcome[]) =>
  outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error)));

/** Runs a batch's writes in the open transaction of `sqlite`; answers each write's outcome. */
function batchRunner(sqlite: Database): (batch: Pending[]) => Outcome[] {
  const savepoint = sqlite.prepare("SAVEPOINT write");
  const release = sqlite.prepare("RELEASE write");
  const rollbackTo = sqlite.prepare("ROLLBACK TO write");

  function runWrite(pending: Pending): unknown {
    const value = pending.write();
    // A promise here would mean async work inside the transaction, which SQLite cannot hold.
    if (value instanceof Promise) throw new Error("group commit writes must be synchronous");
    return value;
  }

  /**
   * Undoes the current write savepoint. SQLITE_FULL (like a few other errors) has SQLite roll the
   * whole transaction back, savepoints included: then the batch fails with that error (a 503), not
   * with "no such savepoint" (a 500).
   */
  function undoSavepoint(error: unknown) {
    if (!sqlite.inTransaction) throw error;
    rollbackTo.run();
    release.run();
  }

  /** One write under its own savepoint: if it throws, only its changes are undone. */
  function runAlone(pending: Pending): Outcome {
    savepoint.run();
    try {
      const value = runWrite(pending);
      release.run();
      return { ok: true, value };
    } catch (error) {
      undoSavepoint(error);
      return { ok: false, error };
    }
  }

  /** Runs the batch bare; if any write throws, undoes them all and runs each alone. */
  return function runBatch(batch: Pending[]): Outcome[] {
    savepoint.run();
    try {
      const outcomes = batch.map((pending): Outcome => ({ ok: true, value: runWrite(pending) }));
      release.run();
      return outcomes;
    } catch (error) {
      undoSavepoint(error);
      return batch.map(runAlone);
    }
  };
}

const isBusy = (error: unknown) => (error as { code?: string } | null)?.code === "SQLITE_BUSY";

/**
 * Commits a batch as one transaction and returns each write's outcome; or, while another process
 * holds the write lock (and for at most `busyBudgetMs`), the delay in ms after which to try the
 * batch again. Throws when the batch failed as a whole (BEGIN, COMMIT), after rolling it back.
 */
export type CommitBatch = (batch: Pending[]) => Outcome[] | number;

export function batchTransaction(sqlite: Database, busyBudgetMs: number): CommitBatch {
  const begin = sqlite.prepare("BEGIN IMMEDIATE");
  const commit = sqlite.prepare("COMMIT");
  const rollback = sqlite.prepare("ROLLBACK");
  const runBatch = batchRunner(sqlite);
  /** When BEGIN first found the write lock taken, while the batch waits for it; null otherwise. */
  let lockedSince: number | null = null;

  return (batch) => {
    try {
      begin.run();
    } catch (error) {
      if (isBusy(error) && Date.now() - (lockedSince ??= Date.now()) < busyBudgetMs) {
        return Math.min(200, 10 * 2 ** Math.min(5, Math.floor((Date.now() - lockedSince) / 100)));
      }
      lockedSince = null;
      throw error;
    }
    lockedSince = null;
    try {
      const outcomes = runBatch(batch);
      commit.run();
      return outcomes;
    } catch (error) {
      try {
        if (sqlite.inTransaction) rollback.run();
      } catch {
        // The connection is gone (closed at shutdown): nothing left to roll back.
      }
      throw error;
    }
  };
}
