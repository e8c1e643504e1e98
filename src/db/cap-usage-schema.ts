// The cap counters, beside schema.ts (which re-exports them) to keep that file short.
import { index, integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * How many requests each cap of the policy counted in one calendar window (docs/policy.md "Caps"):
 * one row per cap, bucket (the vendor's name or the folded campaign of an `each` cap, "" for a cap
 * counted together) and window. A slot is taken by one upsert that adds 1 only while `used` is
 * below the cap's max (store/cap-usage/), in the transaction that stores the lead, so the database
 * keeps the count exact under concurrency. Rows of ended windows are purged by the worker.
 */
export const capUsage = sqliteTable(
  "cap_usage",
  {
    capName: text("cap_name").notNull(),
    bucket: text("bucket").notNull(),
    /** The window's first instant, ms since the epoch. */
    windowStart: integer("window_start").notNull(),
    /** The first instant after the window (the purge reads it). */
    windowEnd: integer("window_end").notNull(),
    used: integer("used").notNull(),
  },
  (t) => [primaryKey({ columns: [t.capName, t.bucket, t.windowStart] }), index("cap_usage_window_end").on(t.windowEnd)],
);
