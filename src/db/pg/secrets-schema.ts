// The service's own secrets on PostgreSQL (../secrets-schema.ts documents each column).
import { bigint, pgTable, text } from "drizzle-orm/pg-core";

export const secrets = pgTable("secrets", {
  name: text("name").primaryKey(),
  value: text("value").notNull(),
  createdAt: bigint("created_at", { mode: "number" }).notNull(),
});
