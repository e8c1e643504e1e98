import { and, asc, eq, gte, lt, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { outcomeCounts } from "../../db/pg/schema.ts";
import type { PgOn } from "../pg-session.ts";
import type { OutcomeCountsTable } from "./index.ts";

/** Rows per INSERT: 6 parameters each, far below PostgreSQL's 65,535. */
const CHUNK = 1_000;

export function pgOutcomeCounts(_db: PgDb): (on: PgOn) => OutcomeCountsTable {
  return (on) => ({
    async add(rows) {
      // In key order (the tally sorts them), so two instances adding the same buckets lock their
      // rows in one order and wait for each other rather than deadlock.
      for (let i = 0; i < rows.length; i += CHUNK)
        await on
          .insert(outcomeCounts)
          .values(rows.slice(i, i + CHUNK))
          .onConflictDoUpdate({
            target: [outcomeCounts.bucketMs, outcomeCounts.bucketAt, outcomeCounts.vendorId, outcomeCounts.kind],
            set: { count: sql`${outcomeCounts.count} + excluded.count`, totalMs: sql`${outcomeCounts.totalMs} + excluded.total_ms` },
          });
    },
    since: async (bucketMs, since) =>
      await on
        .select()
        .from(outcomeCounts)
        .where(and(eq(outcomeCounts.bucketMs, bucketMs), gte(outcomeCounts.bucketAt, since)))
        .orderBy(asc(outcomeCounts.bucketAt)),
    prune: async (bucketMs, before) =>
      void (await on.delete(outcomeCounts).where(and(eq(outcomeCounts.bucketMs, bucketMs), lt(outcomeCounts.bucketAt, before)))),
  });
}
