// The vendor portal's sign-ins (docs/portal.md), beside schema.ts, which re-exports them.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * A vendor's portal sessions and the one-time sign-in links operators create, in the database so
 * every instance sharing it knows them. Keyed by the SHA-256 of the token (the cookie's, or the
 * link's): the table alone lets no one in. A link is deleted when it is used: single use.
 */
export const portalSessions = sqliteTable(
  "portal_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    vendorId: text("vendor_id").notNull(),
    /** `session` (a signed-in browser) or `link` (a sign-in link not used yet). */
    kind: text("kind", { enum: ["session", "link"] }).notNull(),
    /** A session's forms send it back; a change without it is refused. Empty for a link. */
    csrfToken: text("csrf_token").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("portal_sessions_expires").on(t.expiresAt)],
);
