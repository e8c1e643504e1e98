// The vendor portal's sign-ins on PostgreSQL (../portal-schema.ts documents each column).
import { bigint, index, pgTable, text } from "drizzle-orm/pg-core";

export const portalSessions = pgTable(
  "portal_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    vendorId: text("vendor_id").notNull(),
    kind: text("kind", { enum: ["session", "link"] }).notNull(),
    csrfToken: text("csrf_token").notNull(),
    createdAt: bigint("created_at", { mode: "number" }).notNull(),
    expiresAt: bigint("expires_at", { mode: "number" }).notNull(),
  },
  (t) => [index("portal_sessions_expires").on(t.expiresAt)],
);
