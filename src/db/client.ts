import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import * as schema from "./schema.ts";
import { applyMigrations } from "./migrate.ts";

export type Db = BunSQLiteDatabase<typeof schema>;

export interface DatabaseHandle {
  /** The raw connection, for pragmas, prepared hot-path statements and transactions. */
  sqlite: Database;
  db: Db;
  close(): void;
}

/**
 * Opens (creating if needed) the SQLite file and applies pending migrations.
 * synchronous=FULL: a 200 promises the lead is stored, so every commit reaches the disk; intake
 * batches requests into one transaction (group commit) so the fsync is shared, not per lead.
 */
export function openDatabase(path: string, options: { migrate?: boolean } = {}): DatabaseHandle {
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.run("PRAGMA busy_timeout = 5000");
  sqlite.run("PRAGMA journal_mode = WAL");
  sqlite.run("PRAGMA synchronous = FULL");
  sqlite.run("PRAGMA foreign_keys = ON");
  sqlite.run("PRAGMA cache_size = -65536");
  sqlite.run("PRAGMA temp_store = MEMORY");
  if (options.migrate !== false) applyMigrations(sqlite);
  const db = drizzle({ client: sqlite, schema });
  return {
    sqlite,
    db,
    close() {
      // Folds the WAL back into the main file so a stopped service leaves one tidy file.
      try {
        sqlite.run("PRAGMA wal_checkpoint(TRUNCATE)");
      } finally {
        sqlite.close();
      }
    },
  };
}
