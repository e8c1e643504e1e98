import { and, asc, eq, gte, lt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { outcomeCounts } from "../../db/schema.ts";
import type { OutcomeCountsTable } from "./index.ts";

/** Rows per INSERT: 6 parameters each, far below SQLite's 32,766. */
const CHUNK = 1_000;

export function sqliteOutcomeCounts(db: Db): OutcomeCountsTable {
  return {
    add(rows) {
      for (let i = 0; i < rows.length; i += CHUNK)
        db.insert(outcomeCounts)
          .values(rows.slice(i, i + CHUNK))
          .onConflictDoUpdate({
            target: [outcomeCounts.bucketMs, outcomeCounts.bucketAt, outcomeCounts.vendorId, outcomeCounts.kind],
            set: { count: sql`${outcomeCounts.count} + excluded.count`, totalMs: sql`${outcomeCounts.totalMs} + excluded.total_ms` },
          })
          .run();
    },
    since: (bucketMs, since) =>
      db
        .select()
        .from(outcomeCounts)
        .where(and(eq(outcomeCounts.bucketMs, bucketMs), gte(outcomeCounts.bucketAt, since)))
        .orderBy(asc(outcomeCounts.bucketAt))
        .all(),
    prune: (bucketMs, before) =>
      void db
        .delete(outcomeCounts)
        .where(and(eq(outcomeCounts.bucketMs, bucketMs), lt(outcomeCounts.bucketAt, before)))
        .run(),
  };
}
