// Opens a PostgreSQL database through Bun's built-in SQL client and drizzle's bun-sql driver.
// Chosen over postgres.js (drizzle-orm/postgres-js) by measurement (bench/README.md, "Behind the
// code"): more throughput, half the client CPU, no dependency, and it works inside the compiled
// binary. Its jsonb defect (drizzle-orm issue 4942) does not apply: the schema keeps JSON as text.
import { SQL } from "bun";
import { drizzle, type BunSQLDatabase } from "drizzle-orm/bun-sql";
import * as schema from "./schema.ts";
import { applyMigrations } from "./migrate.ts";
import { boundedWaits } from "./bounded-waits.ts";

export type PgDb = BunSQLDatabase<typeof schema>;

export interface PostgresHandle {
  /** With `waitMs`, its queries and transactions wait at most that long for the pool (bounded-waits.ts). */
  db: PgDb;
  /** The raw client (its pool, unbounded), for what the query builder cannot say. */
  sql: SQL;
  /** Closes the pool; in-flight queries finish first. */
  close(): Promise<void>;
}

export interface PostgresOptions {
  /** Connections in the pool (the service's: config.databasePoolSize). */
  poolSize: number;
  /** Apply pending migrations before returning (default true). */
  migrate?: boolean;
  /** Bound waits for the pool (the service's: DATABASE_WAIT_MS); unset, an operator's command waits as long as it takes. */
  waitMs?: number;
}

/**
 * Seconds to wait for a new connection (Bun SQL's default is 30): a server that does not answer
 * (a network partition) fails the attempt, answered 503, instead of holding the request.
 */
const CONNECT_TIMEOUT_S = 5;

/**
 * Milliseconds a statement may run on the server before it cancels it (SQLSTATE 57014, answered
 * 503): a request stalled on the server (a lock held, storage hung) fails instead of waiting
 * without end. Far above any of the service's statements (milliseconds); migrations lift it.
 */
export const STATEMENT_TIMEOUT_MS = 30_000;

/**
 * How long a query on the pool, or a transaction before it begins, waits for PostgreSQL before it
 * is cancelled and the request answered 503 (bounded-waits.ts): a pool starved by other clients
 * holding the server's connection slots answers within seconds instead of queueing requests.
 * Above the service's statements (milliseconds) and its console's reads with room to spare.
 */
export const DATABASE_WAIT_MS = 5_000;

/**
 * Opens a pool on `url` (postgres://…) and, unless told not to, applies pending migrations. A
 * failure names the server and database (never the password): Bun SQL says only "Failed to connect".
 */
export async function openPostgres(url: string, options: PostgresOptions): Promise<PostgresHandle> {
  const client = new SQL({ url, max: options.poolSize, connectionTimeout: CONNECT_TIMEOUT_S, connection: { statement_timeout: STATEMENT_TIMEOUT_MS } });
  const db = drizzle({ client: options.waitMs === undefined ? client : boundedWaits(client, options.waitMs), schema });
  const close = () => client.close();
  if (options.migrate !== false) {
    try {
      await applyMigrations(db);
    } catch (error) {
      await close();
      throw new Error(openFailure(url, error), { cause: error });
    }
  }
  return { db, sql: client, close };
}

/** Why the database at `url` could not be opened, naming the server and database, never the password. */
export const openFailure = (url: string, error: unknown) => `could not open PostgreSQL at ${serverOf(url)}: ${(error as Error).message}`;

/** host:port/database, for messages: a URL's credentials stay out of logs. */
function serverOf(url: string): string {
  const { host, pathname } = new URL(url);
  return `${host}${pathname}`;
}
