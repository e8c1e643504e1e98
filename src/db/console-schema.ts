// The console's tables (operators, their sessions, the audit log), beside schema.ts, which re-exports them.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/** The people who sign in to the console (`lead-ingress operators add`); never vendors. */
export const operators = sqliteTable("operators", {
  id: text("id").primaryKey(),
  name: text("name").notNull().unique(),
  /** Argon2id hash from Bun.password; the password itself is never stored. */
  passwordHash: text("password_hash").notNull(),
  enabled: integer("enabled", { mode: "boolean" }).notNull().default(true),
  createdAt: integer("created_at").notNull(),
  updatedAt: integer("updated_at").notNull(),
});

/**
 * Console sessions, in the database so every instance sharing it accepts them. Keyed by the
 * SHA-256 of the cookie's token: the table alone does not let anyone in.
 */
export const operatorSessions = sqliteTable(
  "operator_sessions",
  {
    tokenHash: text("token_hash").primaryKey(),
    operatorId: text("operator_id").notNull(),
    /** Sent back in every form of the session; a change without it is refused. */
    csrfToken: text("csrf_token").notNull(),
    createdAt: integer("created_at").notNull(),
    expiresAt: integer("expires_at").notNull(),
  },
  (t) => [index("operator_sessions_expires").on(t.expiresAt)],
);

/** Who did what to which subject, and when: console and CLI actions. Only ever appended. */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    at: integer("at").notNull(),
    /** `operator:<name>` in the console, `cli:<OS user>` on the command line. */
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    /** What was acted on: a lead id, an operator's name, … */
    subject: text("subject").notNull(),
    detail: text("detail"),
  },
  (t) => [index("audit_log_at").on(t.at)],
);
