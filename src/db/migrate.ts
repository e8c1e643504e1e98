import type { Database } from "bun:sqlite";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { embeddedMigrations } from "./migrations.macro.ts" with { type: "macro" };

/** drizzle-kit's migrations, embedded at build time. */
export const MIGRATIONS: MigrationMeta[] = embeddedMigrations();

// The same bookkeeping table drizzle's own migrator uses, so drizzle-kit tooling still agrees.
const TABLE = "__drizzle_migrations";

/**
 * Applies the embedded migrations not yet applied. Unlike drizzle's migrator it reads the applied
 * state inside a write (IMMEDIATE) transaction, so a server and a CLI starting together cannot
 * both apply one migration.
 */
export function applyMigrations(sqlite: Database, migrations: MigrationMeta[] = MIGRATIONS): number {
  sqlite.run(`CREATE TABLE IF NOT EXISTS ${TABLE} (id INTEGER PRIMARY KEY, hash TEXT NOT NULL, created_at NUMERIC)`);
  const apply = sqlite.transaction(() => {
    const last = lastAppliedMillis(sqlite);
    const pending = migrations.filter((m) => m.folderMillis > last);
    for (const migration of pending) {
      for (const statement of migration.sql) if (statement.trim()) sqlite.run(statement);
      sqlite.run(`INSERT INTO ${TABLE} (hash, created_at) VALUES (?, ?)`, [migration.hash, migration.folderMillis]);
    }
    return pending.length;
  });
  return apply.immediate();
}

/** True when every embedded migration has been applied (the readiness check). */
export function isMigrated(sqlite: Database, migrations: MigrationMeta[] = MIGRATIONS): boolean {
  const newest = migrations.at(-1)?.folderMillis ?? 0;
  return lastAppliedMillis(sqlite) >= newest;
}

function lastAppliedMillis(sqlite: Database): number {
  const exists = sqlite.query(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?`).get(TABLE);
  if (!exists) return 0;
  const row = sqlite.query(`SELECT max(created_at) AS last FROM ${TABLE}`).get() as { last: number | null };
  return Number(row.last ?? 0);
}
