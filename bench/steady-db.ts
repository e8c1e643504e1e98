// The database bench:steady reads (never writes) for its queues and its verdict: the server's
// SQLite file, or its PostgreSQL database (BENCH_BACKEND=postgres). The queries are written once, in
// SQL both accept: $1 parameters, and numbers cast to DOUBLE PRECISION (PostgreSQL answers bigint
// counts and sums as strings; SQLite reads the type name as REAL).
import { Database } from "bun:sqlite";
import { SQL } from "bun";

export interface BenchDb {
  /** The first row of `query`. */
  row<T>(query: string, params?: unknown[]): Promise<T>;
  close(): Promise<void>;
}

export const isPostgresUrl = (location: string) => /^postgres(ql)?:\/\//.test(location);

export function openBenchDb(location: string): BenchDb {
  if (isPostgresUrl(location)) {
    const sql = new SQL(location, { max: 1 });
    return {
      row: async <T>(query: string, params: unknown[] = []) => (await sql.unsafe(query, params))[0] as T,
      close: () => sql.close(),
    };
  }
  const db = new Database(location, { readonly: true });
  return {
    row: async <T>(query: string, params: unknown[] = []) => db.query(query).get(...(params as never[])) as T,
    close: async () => db.close(),
  };
}

/** A number as both databases answer it: `CAST(expression AS DOUBLE PRECISION)`. */
export const num = (expression: string) => `CAST(${expression} AS DOUBLE PRECISION)`;

/** How many rows a condition holds for, in both dialects (SQLite sums booleans, PostgreSQL does not). */
export const countWhere = (condition: string) => num(`coalesce(sum(CASE WHEN ${condition} THEN 1 ELSE 0 END), 0)`);
