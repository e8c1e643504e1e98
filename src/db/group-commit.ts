// Group commit: writes requested during one turn of the event loop run in one transaction and
// share one fsync (a commit per request would cap intake at the disk's fsyncs per second).
// This file decides when a batch goes; each mechanism lives in its own file:
// - batch.ts: a batch as one transaction, each write under a savepoint when one throws; BEGIN
//   retried on a timer while another process holds the write lock;
// - fsync-pipeline.ts: a batch answered once its WAL fsync returns, one fsync in flight; a failed
//   fsync stops all writing (fail-stop);
// - background-waves.ts: the worker's writes held while the foreground is busy, then let go together;
// - read-snapshot.ts: the reads of one turn share one read transaction;
// - checkpointer.ts: WAL checkpoints on another thread; while its second pass runs, batches wait
//   here (the checkpoint hold) as they do for an fsync.
//
// While an fsync runs, new writes wait and go together in the next batch as soon as it returns, so
// batches stay as large as when the fsync blocked; but once `commitDuringSyncAt` writes wait, they
// are committed at the end of that turn, while the fsync runs, and the next fsync covers them. So
// the event loop runs a busy batch's statements while the disk works, instead of making the disk
// wait for them when the fsync returns (more accepted leads/s; bench/README.md, "Behind the
// code"). Whatever waits when the fsync
// returns is committed then, and the next fsync started, before the synced batches are answered
// (not while the checkpointer holds batches). Reads in between may see a batch still being synced
// (up to two fsyncs, about 1 ms).
//
// A COMMIT failing with SQLITE_FULL is not fail-stop: SQLite rolls it back, nothing was promised.
// `diskSpace` (disk-space.ts) hears of it (readiness fails while the disk is full) and refuses
// foreground writes while its reserve is reached, keeping that room for background writes.
import type { Database } from "bun:sqlite";
import { BACKGROUND_WAVE_MS, backgroundWaves } from "./background-waves.ts";
import { batchTransaction, rejectAll, type Outcome, type Pending, type TransactionParticipant } from "./batch.ts";
import { createCheckpointer, type CheckpointerOptions } from "./checkpointer.ts";
import type { DiskSpace } from "./disk-space.ts";
import { fsyncPipeline } from "./fsync-pipeline.ts";
import { readSnapshot, type ReadInSnapshot } from "./read-snapshot.ts";
import { walSyncFor, type WalSync } from "./wal-sync.ts";
import type { WriteTurn } from "./write-turns.ts";

export interface GroupCommitter {
  /**
   * Runs `write` inside the next batch transaction; resolves after that transaction commits.
   * `write` may run more than once (batch.ts), so it must have no effect outside the database.
   * `background` writes wait for the next wave (at most BACKGROUND_WAVE_MS) while foreground
   * work is in flight.
   */
  run<T>(write: () => T, options?: { background?: boolean }): Promise<T>;
  /** Runs synchronous `read` in this turn's shared read transaction (or the current one). */
  read: ReadInSnapshot;
  /**
   * Why writes fail now: a failed WAL sync that stopped all writes (for good), a full disk, or the
   * disk's reserve reached (until there is room again); null while writes succeed.
   */
  writeFailure(): Error | null;
  /**
   * Stops the checkpoint thread (after its pass in flight, at most `checkpointWaitMs`), resolves
   * once every write handed in so far has settled, then lets go of the WAL (shutdown).
   */
  drain(checkpointWaitMs?: number): Promise<void>;
}

const COMMIT_DURING_SYNC_AT = 8;

/** The options of a background write: `commit.run(write, BACKGROUND)`. */
export const BACKGROUND = { background: true } as const;

export interface GroupCommitOptions {
  busyBudgetMs?: number;
  /** Is there foreground work a background write should wait for? (HTTP requests in flight.) */
  foregroundBusy?: () => boolean;
  /** How long background writes are held while the foreground is busy (tests use other values). */
  backgroundWaveMs?: number;
  /** Makes a committed batch durable; by default the WAL's fsync (none for in-memory databases). */
  walSync?: WalSync | null;
  /** Called once when a WAL sync fails and writes stop. */
  onStorageFailure?: (error: Error) => void;
  /** Checkpoints on another thread instead of inside COMMIT (file databases only; the server's). */
  checkpointInThread?: CheckpointerOptions | null;
  /** How many writes waiting during a WAL fsync are committed before it returns (default 8). */
  commitDuringSyncAt?: number;
  /** The disk's state: told of every batch's outcome; while it says so, foreground writes are refused. */
  diskSpace?: Pick<DiskSpace, "problem" | "foregroundRefusal" | "writeFailed"> | null;
  /** Stores' state that follows each batch's transaction (store/sqlite.ts sqliteTransactionParticipants). */
  participants?: readonly TransactionParticipant[];
  /** This connection's turn at the write lock beside the other writing connection of the process (write-turns.ts). */
  writeTurn?: WriteTurn | null;
}

export function createGroupCommitter(sqlite: Database, options: GroupCommitOptions = {}): GroupCommitter {
  const commitDuringSyncAt = options.commitDuringSyncAt ?? COMMIT_DURING_SYNC_AT;
  const walSync = options.walSync === undefined ? walSyncFor(sqlite) : options.walSync;
  const diskSpace = options.diskSpace ?? null;
  /** The writes for the next batch. */
  let queue: Pending[] = [];
  /** A flush is due (at the end of this turn, or after a locked BEGIN's retry delay); settles once it ran. */
  let flushDue: Promise<void> | null = null;
  /** The checkpointer's second pass is running: no batch is committed until it returns. */
  let checkpointHold: Promise<void> | null = null;
  /** The batch waits for the other connection's write turn (write-turns.ts): no batch is committed meanwhile. */
  let turnWait: Promise<void> | null = null;
  const writeTurn = options.writeTurn ?? null;
  const commitBatch = batchTransaction(sqlite, options.busyBudgetMs ?? 5_000, options.participants);
  const snapshot = readSnapshot(sqlite);
  const fsyncs = fsyncPipeline(walSync, {
    commitWaiting: () => {
      if (queue.length > 0 && !checkpointHold && !turnWait) flushNow();
    },
    afterReturn: () => {
      if (queue.length > 0) schedule(null);
    },
    onStorageFailure: options.onStorageFailure,
  });
  const background = backgroundWaves({
    foregroundBusy: options.foregroundBusy ?? (() => true),
    waveMs: options.backgroundWaveMs ?? BACKGROUND_WAVE_MS,
    join: (held) => {
      queue = queue.concat(held);
      schedule(null);
    },
  });
  const checkpointer =
    options.checkpointInThread && walSync
      ? createCheckpointer(sqlite, (pass) => (checkpointHold = pass.then(endHold, endHold)), options.checkpointInThread)
      : null;

  function endHold() {
    checkpointHold = null;
    if (queue.length > 0) schedule(null);
  }

  function endTurnWait() {
    turnWait = null;
    if (queue.length > 0) schedule(null);
  }

  /** The failed WAL sync that stopped all writes, if one did. */
  const storageFailure = () => (fsyncs.state.kind === "stopped" ? fsyncs.state.failure : null);

  /** Commits the queued batch; returns a retry delay when the database was locked by someone else. */
  function flush(): number | null {
    const batch = queue;
    queue = [];
    // A flush scheduled during an fsync may find its writes already taken by the fsync's return.
    if (batch.length === 0) return null;
    const stopped = storageFailure();
    if (stopped) {
      rejectAll(batch, stopped);
      return null;
    }
    snapshot.end();
    const waitForTurn = writeTurn?.take();
    if (waitForTurn) {
      queue = batch.concat(queue);
      turnWait = waitForTurn.then(endTurnWait, endTurnWait);
      return null;
    }
    let outcomes: Outcome[] | number;
    try {
      outcomes = commitBatch(batch);
    } catch (error) {
      diskSpace?.writeFailed(error);
      rejectAll(batch, error);
      return null;
    } finally {
      writeTurn?.release();
    }
    if (typeof outcomes === "number") {
      queue = batch.concat(queue);
      return outcomes;
    }
    checkpointer?.committed(batch.length);
    fsyncs.committed(batch, outcomes);
    return null;
  }

  /** Commits the queued batch now; when the database was locked by someone else, again later. */
  function flushNow() {
    const retryIn = flush();
    if (retryIn !== null) schedule(retryIn);
  }

  /** Starts a flush at the end of this turn (or after `delayMs`), unless one is already due. */
  function schedule(delayMs: number | null) {
    // The fsync's return flushes the next batch itself (unless enough writes wait to go before
    // it); the end of the checkpoint hold schedules it.
    if (checkpointHold || turnWait || (fsyncs.state.kind === "syncing" && queue.length < commitDuringSyncAt)) return;
    flushDue ??= new Promise((done) => {
      const go = () => {
        flushDue = null;
        if (!checkpointHold && !turnWait) flushNow();
        done();
      };
      // setImmediate, not a microtask: it lets the other requests already read in this turn of
      // the event loop join the batch. (After an fsync no turn is waited for: the writes queued
      // during the fsync are already there, and the disk should not sit idle.)
      if (delayMs === null) setImmediate(go);
      else setTimeout(go, delayMs);
    });
  }

  return {
    run<T>(write: () => T, options: { background?: boolean } = {}) {
      return new Promise<T>((resolve, reject) => {
        const stopped = storageFailure();
        if (stopped) return reject(stopped);
        const pending = { write, resolve: resolve as (value: unknown) => void, reject };
        if (options.background) return background.hold(pending);
        const refused = diskSpace?.foregroundRefusal();
        if (refused) return reject(refused);
        queue.push(pending);
        schedule(null);
      });
    },
    writeFailure: () => storageFailure() ?? diskSpace?.problem() ?? null,
    read: snapshot.read,
    async drain(checkpointWaitMs) {
      background.release();
      await checkpointer?.stop(checkpointWaitMs);
      const inFlight = () => flushDue ?? fsyncs.whenReturned() ?? checkpointHold ?? turnWait;
      for (let work = inFlight(); work; work = inFlight()) await work;
      snapshot.end();
      walSync?.release();
    },
  };
}
