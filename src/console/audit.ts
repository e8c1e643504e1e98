// The audit log's actors and reader. Every operation that changes state (operators, sessions,
// vendors, suppression, decisions, callbacks) appends its entry in the change's own transaction.
import { op } from "../db/script.ts";
import type { AuditEntry, AuditFilter, ListedAuditEntry } from "../store/audit/index.ts";
import type { Store } from "../store/index.ts";

export { auditEntry, type AuditAction, type AuditEntry, type AuditFilter, type ListedAuditEntry } from "../store/audit/index.ts";

/** Who acted: an operator signed in to the console, or the OS user running a CLI command (cli/os-user.ts). */
export const consoleActor = (operatorName: string) => `operator:${operatorName}`;
export const cliActor = (osUser: string) => `cli:${osUser}`;

export async function listAudit(store: Store, limit: number): Promise<AuditEntry[]> {
  return store.read((t) => op(t.audit.list(limit)));
}

/** The entries `filter` selects, newest first. */
export async function searchAudit(store: Store, filter: AuditFilter): Promise<ListedAuditEntry[]> {
  return store.read((t) => op(t.audit.search(filter)));
}
