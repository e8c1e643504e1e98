// Raw queries a test runs to arrange and inspect a database, written once for both backends with
// PostgreSQL's $1, $2 … placeholders; integers come back as numbers on both.
import { SQL } from "bun";
import type { Database } from "bun:sqlite";

/** The rows of a raw query with $1, $2 … parameters. */
export type RowsQuery = (query: string, ...params: unknown[]) => Promise<Record<string, any>[]>;

export function sqliteRows(sqlite: Database): RowsQuery {
  return async (query, ...params) => sqlite.query(query.replace(/\$(\d+)/g, "?$1")).all(...(params as never[])) as Record<string, any>[];
}

/** A one-connection client of its own (bigint: 64-bit integers as BigInt, not strings); close it when done. */
export function postgresRows(url: string): { rows: RowsQuery; close(): Promise<void> } {
  const inspector = new SQL({ url, max: 1, bigint: true });
  return {
    rows: async (query, ...params) =>
      (await inspector.unsafe(query, params)).map((row: Record<string, unknown>) =>
        Object.fromEntries(Object.entries(row).map(([column, value]) => [column, typeof value === "bigint" ? Number(value) : value])),
      ),
    close: () => inspector.close(),
  };
}
