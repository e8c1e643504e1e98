// The audit log's writers and readers: an action and its audit entry go in one transaction where
// the action is ours to write (operators, sessions); after it, where another module writes it.
import { userInfo } from "node:os";
import { op } from "../db/script.ts";
import type { AuditEntry } from "../store/audit/index.ts";
import type { Store } from "../store/index.ts";

export type { AuditEntry } from "../store/audit/index.ts";

/** Who acted: an operator signed in to the console, or the OS user running a CLI command. */
export const consoleActor = (operatorName: string) => `operator:${operatorName}`;
export const cliActor = () => `cli:${userInfo().username}`;

export type AuditAction = Pick<AuditEntry, "actor" | "action" | "subject"> & { detail?: string | null };

export const auditEntry = (action: AuditAction, now: number): AuditEntry => ({ ...action, detail: action.detail ?? null, at: now });

export async function recordAudit(store: Store, action: AuditAction, now = Date.now()): Promise<void> {
  await store.write((t) => op(t.audit.append(auditEntry(action, now))));
}

export async function listAudit(store: Store, limit: number): Promise<AuditEntry[]> {
  return store.read((t) => op(t.audit.list(limit)));
}
