import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { prepareWrite } from "../../db/prepared.ts";
import { capUsage } from "../../db/schema.ts";
import type { CapUsageTable } from "./index.ts";

const p = sql.placeholder;

export function sqliteCapUsage(db: Db): CapUsageTable {
  // Inserts the window's first slot, or adds one while below the max: one statement, so no other
  // write can come between the comparison and the increment. A full counter returns no row. (Raw
  // SQL: drizzle builds no INSERT … SELECT … WHERE, which a max of 0 needs.)
  const take = db.$client.prepare<{ used: number }, [string, string, number, number, number]>(`
    INSERT INTO cap_usage (cap_name, bucket, window_start, window_end, used)
    SELECT ?1, ?2, ?3, ?4, 1 WHERE ?5 > 0
    ON CONFLICT (cap_name, bucket, window_start) DO UPDATE SET used = cap_usage.used + 1 WHERE cap_usage.used < ?5
    RETURNING used`);
  const used = db
    .select({ used: capUsage.used })
    .from(capUsage)
    .where(and(eq(capUsage.capName, p("name")), eq(capUsage.bucket, p("bucket")), eq(capUsage.windowStart, p("windowStart"))))
    .prepare();
  const inWindow = db
    .select()
    .from(capUsage)
    .where(and(eq(capUsage.capName, p("name")), eq(capUsage.windowStart, p("windowStart"))))
    .orderBy(capUsage.bucket)
    .prepare();
  const purge = prepareWrite<{ now: number; limit: number }>(
    db.$client,
    db.delete(capUsage).where(sql`rowid IN (SELECT rowid FROM ${capUsage} WHERE ${capUsage.windowEnd} <= ${p("now")} LIMIT ${p("limit")})`),
  );
  return {
    take: (c) => take.get(c.name, c.bucket, c.windowStart, c.windowEnd, c.max) !== null,
    used: (c) => used.get({ name: c.name, bucket: c.bucket, windowStart: c.windowStart })?.used ?? 0,
    inWindow: (name, windowStart) =>
      inWindow.all({ name, windowStart }).map(({ capName, bucket, windowStart, used }) => ({ capName, bucket, windowStart, used })),
    purgeEnded: (now, limit) => purge.run({ now, limit }).changes,
  };
}
