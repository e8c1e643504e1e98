// Where a PostgreSQL table's statements run: the pool, or the transaction a write script runs in.
// Each table prepares its statements once per database (building a query's SQL is most of a
// statement's client cost: bench/README.md, "Behind the code"), and a script's transaction runs
// those same prepared queries on its own connection.
import type { SQL } from "bun";
import type { ExtractTablesWithRelations } from "drizzle-orm";
import type { BunSQLQueryResultHKT } from "drizzle-orm/bun-sql";
import type { PgDatabase } from "drizzle-orm/pg-core";
import type { PgDb } from "../db/pg/client.ts";
import type * as schema from "../db/pg/schema.ts";

/** The pool's database or a transaction on it. */
export type PgOn = PgDatabase<BunSQLQueryResultHKT, typeof schema, ExtractTablesWithRelations<typeof schema>>;

/** The Bun SQL client under a database or transaction (drizzle's bun-sql session keeps it as `client`). */
const clientOf = (on: PgOn): SQL => (on as unknown as { session: { client: SQL } }).session.client;

/**
 * Runs queries prepared on `db` on the connection of `on`. drizzle's bun-sql prepared query keeps
 * its SQL text, parameters and row mapping and sends them through its `client`; one that inherits
 * everything but the client costs one small object per run.
 */
export function sessionOf(db: PgDb, on: PgOn): <Q extends object>(prepared: Q) => Q {
  const client = clientOf(on);
  if (client === clientOf(db)) return (prepared) => prepared;
  return (prepared) => Object.create(prepared, { client: { value: client } });
}

/** Raw SQL run on the connection of `on`, for the few statements drizzle cannot build. */
export const rawOn = (on: PgOn, text: string, params: unknown[]): Promise<Record<string, unknown>[] & { count: number }> => clientOf(on).unsafe(text, params);

/** Rows an insert, update or delete changed (Bun SQL's result count). */
export const changed = (result: unknown): number => (result as { count: number }).count;
