// The service's own secrets, beside schema.ts (which re-exports it) to keep that file short.
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * Secrets the service generates once and keeps for every instance, by name: today `checks`, the
 * key that signs external check requests (docs/checks.md, "The signing secret"). Read by the
 * operator with `lead-ingress checks secret`; never logged.
 */
export const secrets = sqliteTable("secrets", {
  name: text("name").primaryKey(),
  /** A Standard Webhooks secret, `whsec_<base64>`. */
  value: text("value").notNull(),
  createdAt: integer("created_at").notNull(),
});
