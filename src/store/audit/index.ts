// The audit log: who did what to which subject, and when. Appended by console and CLI actions,
// never changed: each operation that changes state appends its entry in the change's transaction.
import { op, type Op, type Script } from "../../db/script.ts";
import type { auditLog } from "../../db/schema.ts";

export type AuditEntry = Omit<typeof auditLog.$inferSelect, "id">;

/** What an operator did: `actor` is who (console/audit.ts names them), `detail` what the subject alone does not say. */
export type AuditAction = Pick<AuditEntry, "actor" | "action" | "subject"> & { detail?: string | null };

export const auditEntry = (action: AuditAction, now: number): AuditEntry => ({ ...action, detail: action.detail ?? null, at: now });

/** An entry with its id, which orders the log and continues a page after it. */
export type ListedAuditEntry = AuditEntry & { id: number };

/** Which entries to list (search.ts says how each matches). */
export interface AuditFilter {
  /** `operator:NAME` or `cli:USER`; a bare name matches either. */
  actor?: string;
  /** `vendor.disable`; a first word alone (`vendor`) matches all of its actions. */
  action?: string;
  /** At or after (epoch ms). */
  from?: number;
  /** Before (epoch ms). */
  before?: number;
  /** Only entries older than this id: the next page. */
  belowId?: number;
  limit: number;
}

export interface AuditTable {
  append(entry: AuditEntry): Op<void>;
  /**
   * The entries of one action on one subject made in a window of time, oldest first. The window
   * is what keeps it cheap: it reads the entries of that window (by time), not the whole log.
   */
  about(subject: string, action: string, window: { from: number; until: number }): Op<AuditEntry[]>;
  /** Newest first. */
  list(limit: number): Op<AuditEntry[]>;
  /** The entries the filter selects, newest first. */
  search(filter: AuditFilter): Op<ListedAuditEntry[]>;
}

/** Runs `change` and, when it changed something, appends `entry` in the same transaction; answers whether it did. */
export function* auditedChange(change: Op<boolean>, audit: AuditTable, entry: AuditEntry): Script<boolean> {
  const changed = yield* op(change);
  if (changed) yield* op(audit.append(entry));
  return changed;
}
