// Durability off the event loop. With synchronous=FULL, SQLite fsyncs the WAL inside COMMIT, and
// the event loop sat blocked for it: about a tenth of its time under intake load, plus the
// kernel's share of the fsync's CPU. Instead, the group committer's connection commits with
// synchronous=NORMAL (in WAL mode: consistent after a crash, but the last commits may be lost on
// power failure) and then has the WAL fsynced on a thread-pool thread, answering a batch's writers
// only once that fsync returns. What a writer is told "stored" is on disk, as with FULL. The sync is
// fdatasync, as SQLite's own on Linux: the WAL's contents and size, not its timestamps.
//
// Checkpoints are not affected: under NORMAL they still fsync the WAL before copying it into the
// database and the database after, whether this connection runs them or the server's checkpoint
// thread does (checkpointer.ts).
import type { Database } from "bun:sqlite";
import { closeSync, fdatasync, openSync } from "node:fs";

export interface WalSync {
  /** Makes every commit so far durable; calls `done` once it is (with the error if not). Never throws. */
  sync(done: (error: Error | null) => void): void;
  /** Closes the WAL handle (reopened if `sync` is called again). */
  release(): void;
}

/** For a database file: switches `sqlite` to synchronous=NORMAL and returns its WAL syncer. */
export function walSyncFor(sqlite: Database): WalSync | null {
  // An in-memory database has no file to make durable (tests, the OpenAPI lint).
  if (sqlite.filename === "" || sqlite.filename === ":memory:") return null;
  sqlite.run("PRAGMA synchronous = NORMAL");
  let fd: number | null = null;
  return {
    sync(done) {
      try {
        // The WAL exists once anything was committed, and SQLite keeps that file (the same inode)
        // while this connection is open: restarts overwrite it, truncation shortens it.
        fd ??= openSync(`${sqlite.filename}-wal`, "r+");
      } catch (error) {
        return done(walSyncFailed(error as Error));
      }
      fdatasync(fd, (error) => done(error ? walSyncFailed(error) : null));
    },
    release() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/** Reported like SQLite's own failed fsync, so callers answer 503 as for any I/O error. */
function walSyncFailed(cause: Error): Error {
  return Object.assign(new Error(`could not sync the write-ahead log: ${cause.message}`, { cause }), { code: "SQLITE_IOERR_FSYNC" });
}
