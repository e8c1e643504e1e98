// The PostgreSQL schema mirrors the SQLite one: one domain code reads and writes both, so every
// table must have the same name, columns, keys and indexes, and the same JS row types. The type
// half is checked by `bun run typecheck` (a differing row type does not compile); the test half by
// comparing the tables drizzle describes.
import { expect, test } from "bun:test";
import { getTableConfig as pgTableConfig, PgTable } from "drizzle-orm/pg-core";
import { getTableConfig as sqliteTableConfig, SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Table } from "drizzle-orm";
import * as pg from "../../../src/db/pg/schema.ts";
import * as lite from "../../../src/db/schema.ts";

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
type Flat<T> = { [K in keyof T]: T[K] };
/**
 * SQLite lets an insert leave out an INTEGER PRIMARY KEY (it assigns a rowid); PostgreSQL's bigint
 * key has no default and must be given, as the code always does: `Given` names such keys.
 */
type Given<Row, Key extends keyof Row> = Flat<Omit<Row, Key> & Required<Pick<Row, Key>>>;
/** Compiles only when both tables select and insert rows of exactly the same type. */
function sameRowTypes<L extends Table, P extends Table, Key extends keyof L["$inferInsert"] = never>(
  _: Equal<L["$inferSelect"], P["$inferSelect"]> & Equal<Given<L["$inferInsert"], Key>, Flat<P["$inferInsert"]>>,
) {}
sameRowTypes<typeof lite.vendors, typeof pg.vendors>(true);
sameRowTypes<typeof lite.leads, typeof pg.leads>(true);
sameRowTypes<typeof lite.suppressions, typeof pg.suppressions>(true);
sameRowTypes<typeof lite.idempotencyKeys, typeof pg.idempotencyKeys>(true);
sameRowTypes<typeof lite.callbacks, typeof pg.callbacks>(true);
sameRowTypes<typeof lite.callbackAttempts, typeof pg.callbackAttempts>(true);
sameRowTypes<typeof lite.operators, typeof pg.operators>(true);
sameRowTypes<typeof lite.operatorSessions, typeof pg.operatorSessions>(true);
sameRowTypes<typeof lite.auditLog, typeof pg.auditLog>(true);
sameRowTypes<typeof lite.capUsage, typeof pg.capUsage>(true);
sameRowTypes<typeof lite.portalSessions, typeof pg.portalSessions>(true);

interface Shape {
  columns: { name: string; notNull: boolean; primary: boolean; unique: boolean; hasDefault: boolean }[];
  primaryKey: string[];
  indexes: { name: string; columns: string[]; unique: boolean; partial: boolean }[];
  foreignKeys: string[];
}

type Config = ReturnType<typeof pgTableConfig> | ReturnType<typeof sqliteTableConfig>;

function shape({ columns, primaryKeys, indexes, foreignKeys }: Config): Shape {
  const name = (column: { name: string }) => column.name;
  return {
    // A key's default differs by design (see Given above), which the type check covers.
    columns: columns.map((c) => ({ name: c.name, notNull: c.notNull, primary: c.primary, unique: c.isUnique, hasDefault: c.hasDefault && !c.primary })),
    primaryKey: primaryKeys.flatMap((key) => key.columns.map(name)),
    indexes: indexes
      .map(({ config }) => ({
        name: config.name!,
        columns: config.columns.map((c) => name(c as { name: string })),
        unique: config.unique,
        partial: config.where !== undefined,
      }))
      .sort((a, b) => a.name.localeCompare(b.name)),
    foreignKeys: foreignKeys.map((key) => key.getName()),
  };
}

const tablesOf = <T extends Table>(schema: object, kind: abstract new (...args: never[]) => T) =>
  new Map(
    Object.values(schema)
      .filter((value): value is T => value instanceof kind)
      .map((table) => [table[Symbol.for("drizzle:Name") as keyof T] as string, table]),
  );

/**
 * PostgreSQL's phone claims: its unique key resolves concurrent transactions; SQLite, one writer at
 * a time, finds a number's claim in its latest lead (store/phone-claims/sqlite.ts).
 */
const PG_ONLY = ["phone_claims"];

test("the PostgreSQL schema has the SQLite schema's tables, with the same columns, keys and indexes", () => {
  const sqliteTables = tablesOf(lite, SQLiteTable);
  const pgTables = tablesOf(pg, PgTable);
  expect([...pgTables.keys()].filter((name) => !PG_ONLY.includes(name)).sort()).toEqual([...sqliteTables.keys()].sort());
  for (const [name, table] of sqliteTables) {
    expect({ table: name, ...shape(pgTableConfig(pgTables.get(name)!)) }).toEqual({ table: name, ...shape(sqliteTableConfig(table)) });
  }
});
