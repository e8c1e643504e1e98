// The audit log: who did what to which subject, and when. Appended by console and CLI actions,
// never changed.
import type { Op } from "../../db/script.ts";
import type { auditLog } from "../../db/schema.ts";

export type AuditEntry = Omit<typeof auditLog.$inferSelect, "id">;

export interface AuditTable {
  append(entry: AuditEntry): Op<void>;
  /** Newest first. */
  list(limit: number): Op<AuditEntry[]>;
}
