// The refusal log's table, beside schema.ts (which re-exports it) to keep that file short.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Every postLead answered 400 or 422 (docs/operations.md, "The refusal log"): best-effort
 * observability written by refusals/log.ts, searched in the console, purged after
 * --refusal-retention by the maintenance job. Never the body, never an unmasked phone.
 */
export const refusals = sqliteTable(
  "refusals",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    /** When it was answered, ms since the epoch (UTC). */
    at: integer("at").notNull(),
    vendorId: text("vendor_id").notNull(),
    /** vendor_campaign_name as sent (a text), else null. */
    campaign: text("campaign"),
    /** The phone as sent, masked like the logs' (log/index.ts maskPhone); null when none was sent. */
    phoneMasked: text("phone_masked"),
    /** 400 or 422. */
    status: integer("status").notNull(),
    /** The answer's error texts as a JSON array, the values a vendor sent cut out (log/reason.ts). */
    reasons: text("reasons").notNull(),
    requestId: text("request_id").notNull(),
    /** For a policy refusal, the entries that refused: JSON `[{ "kind": "rule"|"schedule"|"cap"|"check", "name" }]`; else "[]". */
    refusedBy: text("refused_by").notNull(),
  },
  (t) => [index("refusals_at").on(t.at), index("refusals_vendor_at").on(t.vendorId, t.at)],
);
