// The SQLite side of `suppress import` (suppression/import.ts): rows are staged in a TEMP table of the
// importing connection, on disk, so millions of rows neither fill memory nor take a lock the service
// waits on; the copy into the list is one INSERT … SELECT in one write transaction (its time:
// bench/README.md, "Behind the code"). (Raw SQL: temp tables and multi-row inserts sized at run time.)
import { sqliteOf, sqliteTables, type Connection } from "../sqlite.ts";
import type { StagedSuppression, SuppressionImport } from "./index.ts";

/** One prepared multi-row INSERT stages this many rows: several times faster than a row per statement. */
const ROWS_PER_INSERT = 250;

/** Stages an import's rows on this connection (a TEMP table), then copies them into the list at once. */
export function sqliteSuppressionImport(connection: Connection): SuppressionImport {
  const sqlite = sqliteOf(connection);
  // On disk rather than in memory (openDatabase's default), so a huge file does not fill RAM.
  sqlite.run("PRAGMA temp_store = FILE");
  sqlite.run("DROP TABLE IF EXISTS temp.suppression_import");
  // Rows are appended as read (random-order inserts into a keyed table were 15x slower at 2M rows);
  // the index is sorted once at the end, so the copy reads the numbers in the list's key order.
  sqlite.run("CREATE TEMP TABLE suppression_import (line INTEGER NOT NULL, phone_e164 TEXT NOT NULL, reason TEXT)");
  const insertSql = (rows: number) => `INSERT INTO temp.suppression_import (line, phone_e164, reason) VALUES ${Array(rows).fill("(?, ?, ?)").join(", ")}`;
  const insertMany = sqlite.prepare<unknown, (string | number | null)[]>(insertSql(ROWS_PER_INSERT));
  const insertOne = sqlite.prepare<unknown, [number, string, string | null]>(insertSql(1));
  return {
    // A temp table belongs to this connection alone: staging takes no lock the service could wait on.
    stage: sqlite.transaction((rows: StagedSuppression[]) => {
      let i = 0;
      for (; i + ROWS_PER_INSERT <= rows.length; i += ROWS_PER_INSERT)
        insertMany.run(...rows.slice(i, i + ROWS_PER_INSERT).flatMap((row) => [row.line, row.e164, row.reason]));
      for (; i < rows.length; i++) insertOne.run(rows[i]!.line, rows[i]!.e164, rows[i]!.reason);
    }),
    /** Copies the staged numbers not yet listed and audits it, in one write transaction; returns how many were added. */
    copyIntoList(now, auditOf) {
      // Built before the write transaction, so the service never waits for this sort.
      sqlite.run("CREATE INDEX temp.suppression_import_order ON suppression_import (phone_e164, line, reason)");
      // In line order within a number, so a number listed twice in the file keeps its first reason.
      const copy = sqlite.prepare<unknown, [number]>(`
        INSERT OR IGNORE INTO main.suppressions (phone_e164, reason, created_at)
        SELECT phone_e164, reason, ?1 FROM temp.suppression_import ORDER BY phone_e164, line`);
      try {
        return sqlite
          .transaction(() => {
            const added = copy.run(now).changes;
            sqliteTables(connection).audit.append(auditOf(added));
            return added;
          })
          .immediate();
      } finally {
        copy.finalize();
      }
    },
    drop() {
      for (const statement of [insertMany, insertOne]) statement.finalize();
      sqlite.run("DROP TABLE IF EXISTS temp.suppression_import");
    },
  };
}
