// The policy table, beside schema.ts (which re-exports it) to keep that file short.
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";

/**
 * The acceptance policy in force (docs/policy.md): one row (`id` 1) holding the operator's document
 * as imported, and a version each change bumps, which every instance reads every second to know
 * when to recompile (policy-in-force/). No row: the empty policy.
 */
export const policy = sqliteTable("policy", {
  id: integer("id").primaryKey(),
  version: integer("version").notNull(),
  /** The document's JSON text exactly as imported: `rules export` prints it back. */
  document: text("document").notNull(),
  updatedAt: integer("updated_at").notNull(),
  updatedBy: text("updated_by").notNull(),
});
