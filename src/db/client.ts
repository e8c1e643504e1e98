import { Database } from "bun:sqlite";
import { accessSync, constants, existsSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema.ts";
import { applyMigrations } from "./migrate.ts";

export type Db = BunSQLiteDatabase<typeof schema> & { $client: Database };

export interface DatabaseHandle {
  /** The raw connection, for pragmas, prepared hot-path statements and transactions. */
  sqlite: Database;
  db: Db;
  close(): void;
}

export interface OpenOptions {
  migrate?: boolean;
  /**
   * How long one statement waits for another process's lock. SQLite waits by sleeping on the
   * calling thread, so the server keeps this short (its writes retry on a timer instead, see
   * group-commit.ts); the CLI can afford to wait.
   */
  busyTimeoutMs?: number;
  /** SQLite's page cache for this connection, in bytes (SQLITE_CACHE_BYTES when unset). */
  cacheBytes?: number;
}

/**
 * SQLite's page cache per connection (--sqlite-cache-size). It was 64 MiB, and under load it
 * filled, a large part of the server's resident memory. A page it misses is in the kernel's file
 * cache anyway (the file is read with pread, not mapped): a system call and a 4 KiB copy, not a
 * disk read. 4 MiB: the smallest cache with no measured cost per lead (bench/README.md, "Memory").
 */
export const SQLITE_CACHE_BYTES = 4 * 1024 * 1024;

/**
 * Switches the file to WAL (a setting the file keeps). Changing the journal mode does not wait on
 * the busy timeout: when two processes open a fresh file together, one gets SQLITE_BUSY at once
 * while the other converts it, so this retries briefly (start-up only).
 */
function useWal(sqlite: Database, deadline = Date.now() + 5_000): void {
  for (;;) {
    try {
      const { journal_mode } = sqlite.query("PRAGMA journal_mode = WAL").get() as { journal_mode: string };
      // An in-memory database (tests, the OpenAPI lint) has no file and answers "memory".
      if (journal_mode === "wal" || journal_mode === "memory") return;
      throw new Error(`could not switch the database to WAL (it stays in ${journal_mode} mode)`);
    } catch (error) {
      if ((error as { code?: string }).code !== "SQLITE_BUSY" || Date.now() > deadline) throw error;
      Bun.sleepSync(10);
    }
  }
}

/**
 * Opens (creating if needed) the SQLite file and applies pending migrations.
 * synchronous=FULL: a 200 promises the lead is stored, so every commit reaches the disk. The
 * server's group committer takes this over for its own connection: it batches requests into one
 * transaction and fsyncs the WAL off the event loop before answering (group-commit.ts, wal-sync.ts).
 */
export function openDatabase(path: string, options: OpenOptions = {}): DatabaseHandle {
  const sqlite = new Database(path, { create: true, strict: true });
  // Migrating waits the full 5 s for another process's lock (two starting together, or a CLI
  // write); the caller's shorter timeout applies after.
  sqlite.run("PRAGMA busy_timeout = 5000");
  useWal(sqlite);
  sqlite.run("PRAGMA synchronous = FULL");
  sqlite.run("PRAGMA foreign_keys = ON");
  // A negative cache_size is in KiB.
  sqlite.run(`PRAGMA cache_size = ${-Math.ceil((options.cacheBytes ?? SQLITE_CACHE_BYTES) / 1024)}`);
  sqlite.run("PRAGMA temp_store = MEMORY");
  if (options.migrate !== false) applyMigrations(sqlite);
  if (options.busyTimeoutMs !== undefined) sqlite.run(`PRAGMA busy_timeout = ${Math.trunc(options.busyTimeoutMs)}`);
  const db = drizzle({ client: sqlite, schema });
  return {
    sqlite,
    db,
    close() {
      // Folds the WAL back into the main file so a stopped service leaves one tidy file. A read
      // snapshot still open (group-commit.ts) would block the checkpoint; closing drops it anyway.
      try {
        if (sqlite.inTransaction) sqlite.run("ROLLBACK");
        sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
      } finally {
        sqlite.close();
      }
    },
  };
}

/** Why serve could not open the SQLite file at `path`, naming the setting and the folder to fix. */
export function sqliteOpenFailure(path: string, error: unknown): string {
  const folder = dirname(resolve(path));
  const why = !existsSync(folder)
    ? `the folder ${folder} does not exist`
    : !writable(folder)
      ? `the folder ${folder} is not writable by this process`
      : (error as Error).message;
  return `Cannot open the SQLite database ${path} (--database): ${why}`;
}

function writable(folder: string): boolean {
  try {
    accessSync(folder, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}
