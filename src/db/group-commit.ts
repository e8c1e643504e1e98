// Group commit: writes requested during one turn of the event loop run in one transaction and
// share one fsync (~0.2 ms here; a commit per request would cap intake near 5,000 leads/s).
//
// The fsync runs off the event loop (wal-sync.ts): a batch's promises settle once its WAL fsync
// returns. Only one fsync is in flight at a time (two at once slowed each other, measured). While
// it runs, new writes wait and go together in the next batch as soon as it returns, so batches stay
// as large as when the fsync blocked; but once `commitDuringSyncAt` writes wait, they are committed
// at the end of that turn, while the fsync runs, and the next fsync covers them. So the event loop
// runs a busy batch's statements while the disk works, instead of making the disk wait for them
// when the fsync returns (measured under intake load: +10-20% accepted leads/s; 1 write did less
// well, 4 to 20 were within the noise of each other). Whatever waits when the fsync returns is
// committed then, and the next fsync started, before the synced batches are answered (not while
// the checkpointer holds batches). A batch is answered only by an fsync that started after its
// COMMIT. Reads in between may see a batch still being synced (up to two fsyncs, about 1 ms).
//
// A failed WAL sync stops all writing until the process restarts (fail-stop, as PostgreSQL does on
// a failed fsync): Linux may have dropped the unsynced pages, so the WAL on disk can lack that
// batch's frames, and WAL recovery stops at the first bad frame, taking every later commit with
// it. Answering a later batch "stored" would be a lie. Every write from then on is refused with
// the sync's error (503 for HTTP callers), and `writeFailure()` reports it (readiness fails).
// A COMMIT failing with SQLITE_FULL is not fail-stop: SQLite rolls it back, nothing was promised.
// `diskSpace` (disk-space.ts) hears of it (readiness fails while the disk is full) and refuses
// foreground writes while its reserve is reached, keeping that room for background writes.
//
// A write that throws is rolled back alone (batch.ts), so a write may run twice: it must touch
// nothing but the database. A failed COMMIT rejects every write of the batch, so no caller is told
// "stored" for something that is not on disk.
//
// Background writes (the worker's claims, outcomes and decisions), while the service has
// foreground work in flight, are held and join a batch all together once every
// BACKGROUND_WAVE_MS. Measured under intake load on 2 cores: riding along in every batch cost
// intake a fifth to a quarter of its throughput whatever the delivery rate (150 or 700
// callbacks/s), probably because every batch then also wrote pages of the callback queue; in
// waves, the same delivery rate costs about a tenth. With no foreground work they go at once.
//
// Reads outside writes (authentication, prePing, lookups) share one read transaction per turn of
// the event loop: in WAL mode each transaction's lock costs two fcntl() calls, more than the lookup.
// It ends before the next batch begins and at the end of the turn: no read is over a turn stale.
//
// With `checkpointInThread`, checkpoints run on another thread (checkpointer.ts); while its second
// pass runs, new batches wait as they do for a WAL fsync. When another process holds the write
// lock, BEGIN fails fast (short busy timeout) and the batch is retried on a timer, so the event
// loop keeps serving; after `busyBudgetMs` it is rejected with SQLITE_BUSY (503 for HTTP callers).
import type { Database } from "bun:sqlite";
import { batchRunner, rejectAll, settle, type Outcome, type Pending } from "./batch.ts";
import { createCheckpointer, type CheckpointerOptions } from "./checkpointer.ts";
import type { DiskSpace } from "./disk-space.ts";
import { walSyncFor, type WalSync } from "./wal-sync.ts";

/** Runs a synchronous read: in the turn's shared snapshot (GroupCommitter.read) or directly. */
export type ReadInSnapshot = <T>(read: () => T) => T;
export const readDirectly: ReadInSnapshot = (read) => read();

export interface GroupCommitter {
  /**
   * Runs `write` inside the next batch transaction; resolves after that transaction commits.
   * `write` may run more than once (see above), so it must have no effect outside the database.
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

const BACKGROUND_WAVE_MS = 25;
const COMMIT_DURING_SYNC_AT = 8;

/** The options of a background write: `commit.run(write, BACKGROUND)`. */
export const BACKGROUND = { background: true } as const;

const isBusy = (error: unknown) => (error as { code?: string } | null)?.code === "SQLITE_BUSY";

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
}

/** A committed batch and what each of its writes returned or threw. */
interface Committed {
  batch: Pending[];
  outcomes: Outcome[];
}

export function createGroupCommitter(sqlite: Database, options: GroupCommitOptions = {}): GroupCommitter {
  const busyBudgetMs = options.busyBudgetMs ?? 5_000;
  const foregroundBusy = options.foregroundBusy ?? (() => true);
  const backgroundWaveMs = options.backgroundWaveMs ?? BACKGROUND_WAVE_MS;
  const commitDuringSyncAt = options.commitDuringSyncAt ?? COMMIT_DURING_SYNC_AT;
  const walSync = options.walSync === undefined ? walSyncFor(sqlite) : options.walSync;
  const diskSpace = options.diskSpace ?? null;
  const begin = sqlite.prepare("BEGIN IMMEDIATE");
  const commit = sqlite.prepare("COMMIT");
  const rollback = sqlite.prepare("ROLLBACK");
  const beginRead = sqlite.prepare("BEGIN");
  const runBatch = batchRunner(sqlite);
  let queue: Pending[] = [];
  let flushing: Promise<void> | null = null;
  /** Background writes waiting for the next wave, and the wave's timer. */
  let held: Pending[] = [];
  let wave: Timer | null = null;
  let busySince: number | null = null;
  let readOpen = false;
  /** The WAL fsync in flight; until it returns, a batch is flushed only once `commitDuringSyncAt` writes wait. */
  let syncing: Promise<void> | null = null;
  /** Batches committed while an fsync was in flight: the next fsync makes them durable. */
  let unsynced: Committed[] = [];
  /** Set by a failed WAL sync: no write is taken from then on. */
  let storageFailure: Error | null = null;
  /** The checkpointer's second pass; no batch is flushed until it returns. */
  let holding: Promise<void> | null = null;
  const checkpointer =
    options.checkpointInThread && walSync
      ? createCheckpointer(sqlite, (pass) => (holding = pass.then(endHold, endHold)), options.checkpointInThread)
      : null;

  function endHold() {
    holding = null;
    if (queue.length > 0) schedule(null);
  }

  function endRead() {
    if (!readOpen) return;
    readOpen = false;
    try {
      commit.run();
    } catch {
      // The connection is gone (closed at shutdown): the snapshot went with it.
    }
  }

  /** Runs the queued batch; returns a retry delay when the database was locked by someone else. */
  function flush(): number | null {
    const batch = queue;
    queue = [];
    // A flush scheduled during an fsync may find its writes already taken by the fsync's return.
    if (batch.length === 0) return null;
    if (storageFailure) {
      rejectAll(batch, storageFailure);
      return null;
    }
    let outcomes: Outcome[];
    endRead();
    try {
      begin.run();
    } catch (error) {
      if (isBusy(error) && Date.now() - (busySince ??= Date.now()) < busyBudgetMs) {
        queue = batch.concat(queue);
        return Math.min(200, 10 * 2 ** Math.min(5, Math.floor((Date.now() - busySince) / 100)));
      }
      busySince = null;
      diskSpace?.writeFailed(error);
      rejectAll(batch, error);
      return null;
    }
    busySince = null;
    try {
      outcomes = runBatch(batch);
      commit.run();
    } catch (error) {
      try {
        if (sqlite.inTransaction) rollback.run();
      } catch {
        // The connection is gone (closed at shutdown): nothing left to roll back.
      }
      diskSpace?.writeFailed(error);
      rejectAll(batch, error);
      return null;
    }
    checkpointer?.committed(batch.length);
    if (!walSync) settle(batch, outcomes);
    else {
      unsynced.push({ batch, outcomes });
      if (!syncing) syncThenSettle(walSync);
    }
    return null;
  }

  /**
   * Starts the WAL fsync for every batch committed so far. They are answered once it returns,
   * right after the writes that waited meanwhile are committed and the next fsync started.
   */
  function syncThenSettle(wal: WalSync) {
    const committed = unsynced;
    unsynced = [];
    let synced!: () => void;
    syncing = new Promise((resolve) => (synced = resolve));
    wal.sync((error) => {
      syncing = null;
      if (error) {
        // Batches committed during this fsync are not durable either, and never will be.
        for (const { batch } of committed.concat(unsynced)) rejectAll(batch, error);
        unsynced = [];
        if (!storageFailure) {
          storageFailure = error;
          options.onStorageFailure?.(error);
        }
      } else {
        if (queue.length > 0 && !holding) flushNow();
        if (unsynced.length > 0 && !syncing) syncThenSettle(wal);
        for (const { batch, outcomes } of committed) settle(batch, outcomes);
      }
      synced();
      if (queue.length > 0) schedule(null);
    });
  }

  /** Runs the queued batch now; when the database was locked by someone else, again later. */
  function flushNow() {
    const retryIn = flush();
    if (retryIn !== null) schedule(retryIn);
  }

  /** Starts a flush at the end of this turn (or after `delayMs`), unless one is already due. */
  function schedule(delayMs: number | null) {
    // The fsync's return flushes the next batch itself (unless enough writes wait to go before
    // it); the end of the hold schedules it.
    if (holding || (syncing && queue.length < commitDuringSyncAt)) return;
    flushing ??= new Promise((done) => {
      const go = () => {
        flushing = null;
        if (!holding) flushNow();
        done();
      };
      // setImmediate, not a microtask: it lets the other requests already read in this turn of
      // the event loop join the batch. (After an fsync no turn is waited for: the writes queued
      // during the fsync are already there, and the disk should not sit idle.)
      if (delayMs === null) setImmediate(go);
      else setTimeout(go, delayMs);
    });
  }

  /** The wave: held background writes join the batch of this turn. */
  function releaseHeld() {
    if (wave !== null) clearTimeout(wave);
    wave = null;
    if (held.length === 0) return;
    queue = queue.concat(held);
    held = [];
    schedule(null);
  }

  return {
    run<T>(write: () => T, options: { background?: boolean } = {}) {
      return new Promise<T>((resolve, reject) => {
        if (storageFailure) return reject(storageFailure);
        const pending = { write, resolve: resolve as (value: unknown) => void, reject };
        if (!options.background) {
          const refused = diskSpace?.foregroundRefusal();
          if (refused) return reject(refused);
          queue.push(pending);
          schedule(null);
          return;
        }
        held.push(pending);
        if (foregroundBusy()) wave ??= setTimeout(releaseHeld, backgroundWaveMs);
        else releaseHeld();
      });
    },
    writeFailure: () => storageFailure ?? diskSpace?.problem() ?? null,
    read<T>(read: () => T): T {
      if (!sqlite.inTransaction) {
        beginRead.run();
        readOpen = true;
        setImmediate(endRead);
      }
      return read();
    },
    async drain(checkpointWaitMs) {
      releaseHeld();
      await checkpointer?.stop(checkpointWaitMs);
      while (flushing || syncing || holding) await (flushing ?? syncing ?? holding);
      endRead();
      walSync?.release();
    },
  };
}
