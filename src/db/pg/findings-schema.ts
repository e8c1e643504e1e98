// A lead's findings on PostgreSQL (../findings-schema.ts documents each column).
import { bigint, integer, pgTable, primaryKey, text } from "drizzle-orm/pg-core";

const millis = (name: string) => bigint(name, { mode: "number" });

export const leadFindings = pgTable(
  "lead_findings",
  {
    leadId: text("lead_id").notNull(),
    kind: text("kind").notNull(),
    name: text("name").notNull(),
    outcome: text("outcome").notNull(),
    reason: text("reason"),
    detail: text("detail"),
    raw: text("raw"),
    attempts: integer("attempts").notNull(),
    firstAt: millis("first_at").notNull(),
    checkedAt: millis("checked_at"),
    nextAt: millis("next_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.leadId, t.kind, t.name] })],
);
