// The audit log: who did what to which subject, and when. Appended by console and CLI actions,
// never changed: each operation that changes state appends its entry in the change's transaction.
import { op, type Op, type Script } from "../../db/script.ts";
import type { auditLog } from "../../db/schema.ts";

export type AuditEntry = Omit<typeof auditLog.$inferSelect, "id">;

/** What an operator did: `actor` is who (console/audit.ts names them), `detail` what the subject alone does not say. */
export type AuditAction = Pick<AuditEntry, "actor" | "action" | "subject"> & { detail?: string | null };

export const auditEntry = (action: AuditAction, now: number): AuditEntry => ({ ...action, detail: action.detail ?? null, at: now });

export interface AuditTable {
  append(entry: AuditEntry): Op<void>;
  /**
   * The entries of one action on one subject made in a window of time, oldest first. The window
   * is what keeps it cheap: it reads the entries of that window (by time), not the whole log.
   */
  about(subject: string, action: string, window: { from: number; until: number }): Op<AuditEntry[]>;
  /** Newest first. */
  list(limit: number): Op<AuditEntry[]>;
}

/** Runs `change` and, when it changed something, appends `entry` in the same transaction; answers whether it did. */
export function* auditedChange(change: Op<boolean>, audit: AuditTable, entry: AuditEntry): Script<boolean> {
  const changed = yield* op(change);
  if (changed) yield* op(audit.append(entry));
  return changed;
}
