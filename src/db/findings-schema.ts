// What was found out about a lead during its hold by asking someone else, beside schema.ts (which
// re-exports it): one row per lead, kind and name. Today kind "certificate", name "trustedform"
// (certificates/, docs/certificates.md); built so the policy's final-stage checks (kind "check",
// the check's name, docs/contract.md §11) can be stored the same way: the same claim, retry and
// answer columns, and what is particular to a kind in `detail`.
import { integer, primaryKey, sqliteTable, text } from "drizzle-orm/sqlite-core";

export const leadFindings = sqliteTable(
  "lead_findings",
  {
    leadId: text("lead_id").notNull(),
    /** "certificate" (later "check"). */
    kind: text("kind").notNull(),
    /** The provider or check: "trustedform". */
    name: text("name").notNull(),
    /**
     * "pending" while no answer came (asked, or being asked); then the kind's outcome: for a
     * certificate verified, not_verified (both settled: never asked again) or unreachable (asked again).
     */
    outcome: text("outcome").notNull(),
    /** The provider's reason (or ours), safe for a callback; null when verified or pending. */
    reason: text("reason"),
    /** What the kind adds, as JSON (a certificate: matches, age, page URL, domain, expiry, HTTP status). */
    detail: text("detail"),
    /** The provider's answer as received, bounded (certificates/evidence.ts MAX_RAW_CHARS). */
    raw: text("raw"),
    /** Requests made (claims taken): a crash between a claim and its answer counts one. */
    attempts: integer("attempts").notNull(),
    /** When it was first asked. */
    firstAt: integer("first_at").notNull(),
    /** When the last answer came; null while none has. */
    checkedAt: integer("checked_at"),
    /** While pending, the claim's lease: no one asks again before it. When unreachable, the next try. */
    nextAt: integer("next_at").notNull(),
  },
  (t) => [primaryKey({ columns: [t.leadId, t.kind, t.name] })],
);
