import { and, eq, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { capUsage } from "../../db/pg/schema.ts";
import { changed, rawOn, sessionOf, type PgOn } from "../pg-session.ts";
import type { CapUsageTable } from "./index.ts";

const p = sql.placeholder;

// As on SQLite, one statement. Across instances, under READ COMMITTED, a second taker of one
// counter waits for the first's row lock (held until its transaction ends), then evaluates
// `used < max` on the row the first committed: n takers of k free slots get exactly k rows back.
// A rolled-back taker (its lead refused by another cap) leaves the count as it was.
const TAKE = `
  INSERT INTO cap_usage (cap_name, bucket, window_start, window_end, used)
  SELECT $1::text, $2::text, $3::bigint, $4::bigint, 1 WHERE $5::int > 0
  ON CONFLICT (cap_name, bucket, window_start) DO UPDATE SET used = cap_usage.used + 1 WHERE cap_usage.used < $5::int
  RETURNING used`;

export function pgCapUsage(db: PgDb): (on: PgOn) => CapUsageTable {
  const used = db
    .select({ used: capUsage.used })
    .from(capUsage)
    .where(and(eq(capUsage.capName, p("name")), eq(capUsage.bucket, p("bucket")), eq(capUsage.windowStart, p("windowStart"))))
    .prepare("cap_usage_used");
  const inWindow = db
    .select()
    .from(capUsage)
    .where(and(eq(capUsage.capName, p("name")), eq(capUsage.windowStart, p("windowStart"))))
    .orderBy(capUsage.bucket)
    .prepare("cap_usage_in_window");
  const purge = db
    .delete(capUsage)
    .where(sql`ctid IN (SELECT ctid FROM ${capUsage} WHERE ${capUsage.windowEnd} <= ${p("now")} LIMIT ${p("limit")})`)
    .prepare("cap_usage_purge");
  return (on) => {
    const at = sessionOf(db, on);
    return {
      take: async (c) => (await rawOn(on, TAKE, [c.name, c.bucket, c.windowStart, c.windowEnd, c.max])).length > 0,
      used: async (c) => (await at(used).execute({ name: c.name, bucket: c.bucket, windowStart: c.windowStart }))[0]?.used ?? 0,
      inWindow: async (name, windowStart) =>
        (await at(inWindow).execute({ name, windowStart })).map(({ capName, bucket, windowStart, used }) => ({ capName, bucket, windowStart, used })),
      purgeEnded: async (now, limit) => changed(await at(purge).execute({ now, limit })),
    };
  };
}
