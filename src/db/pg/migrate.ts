// Applies drizzle-kit's PostgreSQL migrations (drizzle/pg/, embedded at build time), the twin of
// ../migrate.ts. drizzle's own migrate() takes no lock and reads the applied state outside its
// transaction: 4 of 5 instances starting together on a fresh database failed with it (duplicate
// pg_type/pg_class rows, or "__drizzle_migrations already exists"). Here the whole check-and-apply
// is one transaction that first takes a transaction-scoped advisory lock, so instances starting
// together apply each migration exactly once; DDL is transactional, so a failure leaves nothing
// half-applied. The bookkeeping is drizzle's own table, so drizzle-kit agrees on what is applied.
import { sql } from "drizzle-orm";
import type { MigrationMeta } from "drizzle-orm/migrator";
import type { BunSQLQueryResultHKT } from "drizzle-orm/bun-sql";
import type { PgDatabase } from "drizzle-orm/pg-core";
import { driverErrors } from "./errors.ts";
import { embeddedPgMigrations } from "../migrations.macro.ts" with { type: "macro" };

/** drizzle-kit's PostgreSQL migrations, embedded at build time. */
export const PG_MIGRATIONS: MigrationMeta[] = embeddedPgMigrations();

/** Any schema's database on Bun SQL (the tests migrate without one). */
type AnyPgDatabase = PgDatabase<BunSQLQueryResultHKT, Record<string, unknown>>;

/** The advisory lock every instance takes to migrate: "LeadIn" in ASCII, an arbitrary constant. */
const MIGRATION_LOCK = 0x4c65_6164_496e;

/** Applies the embedded migrations not yet applied; returns how many it applied. */
export function applyMigrations(db: AnyPgDatabase, migrations: MigrationMeta[] = PG_MIGRATIONS): Promise<number> {
  return driverErrors(
    db.transaction(async (tx) => {
      // A migration, or the wait for another instance's, may outlast the pool's statement timeout.
      await tx.execute(sql`set local statement_timeout = 0`);
      await tx.execute(sql`select pg_advisory_xact_lock(${MIGRATION_LOCK})`); // released at commit or rollback
      await tx.execute(sql`create schema if not exists drizzle`);
      await tx.execute(sql`create table if not exists drizzle.__drizzle_migrations (id serial primary key, hash text not null, created_at bigint)`);
      const last = await lastAppliedMillis(tx);
      const pending = migrations.filter((migration) => migration.folderMillis > last);
      for (const migration of pending) {
        for (const statement of migration.sql) if (statement.trim()) await tx.execute(sql.raw(statement));
        await tx.execute(sql`insert into drizzle.__drizzle_migrations (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`);
      }
      return pending.length;
    }),
  );
}

/** True when every embedded migration has been applied (the readiness check). */
export async function isMigrated(db: AnyPgDatabase, migrations: MigrationMeta[] = PG_MIGRATIONS): Promise<boolean> {
  const newest = migrations.at(-1)?.folderMillis ?? 0;
  return (await driverErrors(lastAppliedMillis(db))) >= newest;
}

async function lastAppliedMillis(db: Pick<AnyPgDatabase, "execute">): Promise<number> {
  // to_regclass: null, not an error, before the first migration created the table.
  const [table] = await db.execute<{ exists: boolean }>(sql`select to_regclass('drizzle.__drizzle_migrations') is not null as exists`);
  if (!table?.exists) return 0;
  // int8 arrives as a string from a raw query.
  const [row] = await db.execute<{ last: string | null }>(sql`select max(created_at) as last from drizzle.__drizzle_migrations`);
  return Number(row?.last ?? 0);
}
