// The PostgreSQL side of `suppress import` (suppression/import.ts), the twin of sqlite-import.ts:
// rows are staged in a TEMP table of one reserved connection (temp tables belong to a session),
// unlogged and invisible to the service; the copy into the list is one INSERT … SELECT in one
// transaction, so the list gets every number of the file or none. (Raw SQL: a temp table.)
import { drizzle } from "drizzle-orm/bun-sql";
import type { PostgresHandle } from "../../db/pg/client.ts";
import * as schema from "../../db/pg/schema.ts";
import { pgTables } from "../pg.ts";
import type { StagedSuppression, SuppressionImport } from "./index.ts";

/** Rows per multi-row INSERT: PostgreSQL takes at most 65,535 parameters, 3 per row here. */
const ROWS_PER_INSERT = 5_000;

/** Stages an import's rows on a connection of its own, then copies them into the list at once. */
export async function pgSuppressionImport(postgres: PostgresHandle): Promise<SuppressionImport> {
  const session = await postgres.sql.reserve();
  await session`create temp table suppression_import (line integer not null, phone_e164 text not null, reason text)`;
  return {
    async stage(rows: StagedSuppression[]) {
      for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
        const chunk = rows.slice(i, i + ROWS_PER_INSERT).map((row) => ({ line: row.line, phone_e164: row.e164, reason: row.reason }));
        await session`insert into suppression_import ${session(chunk, "line", "phone_e164", "reason")}`;
      }
    },
    copyIntoList: (now, auditOf) =>
      // On the reserved connection (its temp table), the list and the audit log in one transaction.
      session.begin(async (tx) => {
        // DISTINCT ON keeps a number's first line (and so its first reason), as on SQLite.
        const { count } = await tx`
          insert into suppressions (phone_e164, reason, created_at)
          select distinct on (phone_e164) phone_e164, reason, ${now} from suppression_import order by phone_e164, line
          on conflict (phone_e164) do nothing`;
        await pgTables(postgres.db, drizzle({ client: tx, schema })).audit.append(auditOf(count));
        return count;
      }),
    async drop() {
      try {
        await session`drop table if exists suppression_import`;
      } finally {
        session.release();
      }
    },
  };
}
