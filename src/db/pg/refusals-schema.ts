// The refusal log's table on PostgreSQL (../refusals-schema.ts documents each column).
import { bigint, bigserial, index, integer, pgTable, text } from "drizzle-orm/pg-core";

const millis = (name: string) => bigint(name, { mode: "number" });

export const refusals = pgTable(
  "refusals",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    at: millis("at").notNull(),
    vendorId: text("vendor_id").notNull(),
    campaign: text("campaign"),
    phoneMasked: text("phone_masked"),
    status: integer("status").notNull(),
    reasons: text("reasons").notNull(),
    requestId: text("request_id").notNull(),
    refusedBy: text("refused_by").notNull(),
  },
  (t) => [index("refusals_at").on(t.at), index("refusals_vendor_at").on(t.vendorId, t.at)],
);
