// An operator's decision during the hold (CONTRACT §7): recorded now, applied when the hold ends.
import type { Database } from "bun:sqlite";

export class DecisionError extends Error {}

export function recordOperatorDecision(sqlite: Database, leadId: string, decision: "accept" | "reject", reason: string | null): void {
  const result = sqlite
    .prepare(`UPDATE leads SET operator_decision = ?1, operator_reason = ?2 WHERE id = ?3 AND status = 'pending'`)
    .run(decision, reason, leadId);
  if (result.changes === 1) return;
  const lead = sqlite.prepare<{ status: string }, [string]>(`SELECT status FROM leads WHERE id = ?1`).get(leadId);
  throw new DecisionError(lead ? `Lead ${leadId} is already ${lead.status}; final results never change` : `No such lead: ${leadId}`);
}
