// The cap counters (../cap-usage-schema.ts documents them), beside schema.ts, which re-exports them.
import { bigint, index, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

export const capUsage = pgTable(
  "cap_usage",
  {
    capName: text("cap_name").notNull(),
    bucket: text("bucket").notNull(),
    windowStart: bigint("window_start", { mode: "number" }).notNull(),
    windowEnd: bigint("window_end", { mode: "number" }).notNull(),
    used: integer("used").notNull(),
  },
  (t) => [primaryKey({ columns: [t.capName, t.bucket, t.windowStart] }), index("cap_usage_window_end").on(t.windowEnd)],
);
