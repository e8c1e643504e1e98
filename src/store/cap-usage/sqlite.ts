import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { prepareWrite } from "../../db/prepared.ts";
import { capUsage } from "../../db/schema.ts";
import type { CapUsageTable } from "./index.ts";
import { type CapTally, capTally } from "./sqlite-tally.ts";

const p = sql.placeholder;

/**
 * The table, and its tally (sqlite-tally.ts): the group committer's batches count slots there and
 * write each counter once (store/sqlite.ts sqliteTransactionParticipants); a write outside a batch
 * (another connection's transaction) takes its slot with one statement.
 */
export function sqliteCapUsage(db: Db): { table: CapUsageTable; tally: CapTally } {
  // Inserts the window's first slot, or adds one while below the max: one statement, so no other
  // write can come between the comparison and the increment. A full counter returns no row. (Raw
  // SQL: drizzle builds no INSERT … SELECT … WHERE, which a max of 0 needs.)
  const take = db.$client.prepare<{ used: number }, [string, string, number, number, number]>(`
    INSERT INTO cap_usage (cap_name, bucket, window_start, window_end, used)
    SELECT ?1, ?2, ?3, ?4, 1 WHERE ?5 > 0
    ON CONFLICT (cap_name, bucket, window_start) DO UPDATE SET used = cap_usage.used + 1 WHERE cap_usage.used < ?5
    RETURNING used`);
  // Raw statements: read for every prePing and lead in scope of a cap, where drizzle's row mapping
  // cost more than the lookup.
  const used = db.$client.prepare<{ used: number }, [string, string, number]>(
    "SELECT used FROM cap_usage WHERE cap_name = ?1 AND bucket = ?2 AND window_start = ?3",
  );
  const write = db.$client.prepare<unknown, [string, string, number, number, number]>(`
    INSERT INTO cap_usage (cap_name, bucket, window_start, window_end, used) VALUES (?1, ?2, ?3, ?4, ?5)
    ON CONFLICT (cap_name, bucket, window_start) DO UPDATE SET used = excluded.used`);
  const storedUse = (c: { name: string; bucket: string; windowStart: number }) => used.get(c.name, c.bucket, c.windowStart)?.used ?? 0;
  const tally = capTally({ read: storedUse, write: (c, count) => write.run(c.name, c.bucket, c.windowStart, c.windowEnd, count) });
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
  const table: CapUsageTable = {
    take: (c) => (tally.active ? tally.take(c) !== null : take.get(c.name, c.bucket, c.windowStart, c.windowEnd, c.max) !== null),
    used: (c) => (tally.active ? tally.used(c) : storedUse(c)),
    inWindow: (name, windowStart) =>
      inWindow.all({ name, windowStart }).map(({ capName, bucket, windowStart, used }) => ({ capName, bucket, windowStart, used })),
    purgeEnded: (now, limit) => purge.run({ now, limit }).changes,
  };
  return { table, tally };
}
