// One group-commit batch as one transaction (group-commit.ts): every write, each answered with
// its own outcome. A write that throws is rolled back alone and rejects its own promise; the others
// still commit. Writes almost never throw, so a batch first runs them bare under one SAVEPOINT;
// only when one throws is that undone and the batch run again with a SAVEPOINT per write (two
// statements per write that the common case does not pay). So a write may run twice: it must touch
// nothing but the database (report what it did after its promise resolves). A failed COMMIT fails
// every write of the batch, so no caller is told "stored" for something that is not on disk.
//
// A store may defer writes to the batch's end (TransactionParticipant: the cap counters, which one
// batch's leads would otherwise update once per lead): it is told of each savepoint, of its undo
// and release, writes what it deferred just before COMMIT (inside the transaction), and forgets
// everything when the transaction ends either way.
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

/** A store's state that follows the batch's transaction (see above); every call is synchronous. */
export interface TransactionParticipant {
  /** BEGIN succeeded: the participant may defer writes until beforeCommit. */
  begin(): void;
  /** A savepoint was set. */
  mark(): void;
  /** The savepoint's changes were undone (and it was released). */
  undo(): void;
  /** The savepoint was released, its changes kept. */
  keep(): void;
  /** Writes what was deferred, inside the transaction, just before COMMIT. */
  beforeCommit(): void;
  /** The transaction ended (committed or rolled back): forget what was deferred. */
  end(): void;
}

export type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

export const rejectAll = (batch: Pending[], error: unknown) => batch.forEach((pending) => pending.reject(error));

/** Answers each write of a committed (and durable) batch with its own outcome. */
export const settle = (batch: Pending[], outcomes: Outcome[]) =>
  outcomes.forEach((outcome, i) => (outcome.ok ? batch[i]!.resolve(outcome.value) : batch[i]!.reject(outcome.error)));

/** Runs a batch's writes in the open transaction of `sqlite`; answers each write's outcome. */
function batchRunner(sqlite: Database, participants: readonly TransactionParticipant[]): (batch: Pending[]) => Outcome[] {
  const savepoint = sqlite.prepare("SAVEPOINT write");
  const release = sqlite.prepare("RELEASE write");
  const rollbackTo = sqlite.prepare("ROLLBACK TO write");

  function setSavepoint() {
    savepoint.run();
    for (const participant of participants) participant.mark();
  }

  function releaseSavepoint() {
    release.run();
    for (const participant of participants) participant.keep();
  }

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
    for (const participant of participants) participant.undo();
  }

  /** One write under its own savepoint: if it throws, only its changes are undone. */
  function runAlone(pending: Pending): Outcome {
    setSavepoint();
    try {
      const value = runWrite(pending);
      releaseSavepoint();
      return { ok: true, value };
    } catch (error) {
      undoSavepoint(error);
      return { ok: false, error };
    }
  }

  /** Runs the batch bare; if any write throws, undoes them all and runs each alone. */
  return function runBatch(batch: Pending[]): Outcome[] {
    setSavepoint();
    try {
      const outcomes = batch.map((pending): Outcome => ({ ok: true, value: runWrite(pending) }));
      releaseSavepoint();
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

export function batchTransaction(sqlite: Database, busyBudgetMs: number, participants: readonly TransactionParticipant[] = []): CommitBatch {
  const begin = sqlite.prepare("BEGIN IMMEDIATE");
  const commit = sqlite.prepare("COMMIT");
  const rollback = sqlite.prepare("ROLLBACK");
  const runBatch = batchRunner(sqlite, participants);
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
    for (const participant of participants) participant.begin();
    try {
      const outcomes = runBatch(batch);
      for (const participant of participants) participant.beforeCommit();
      commit.run();
      return outcomes;
    } catch (error) {
      try {
        if (sqlite.inTransaction) rollback.run();
      } catch {
        // The connection is gone (closed at shutdown): nothing left to roll back.
      }
      throw error;
    } finally {
      for (const participant of participants) participant.end();
    }
  };
}
