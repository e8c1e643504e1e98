// An operator's decision during the hold (CONTRACT §7): recorded now, applied when the hold ends.
import type { Database } from "bun:sqlite";
import { leadKey } from "../db/schema.ts";

export class DecisionError extends Error {}

export function recordOperatorDecision(sqlite: Database, leadId: string, decision: "accept" | "reject", reason: string | null): void {
  const result = sqlite
    .prepare(`UPDATE leads SET operator_decision = ?1, operator_reason = ?2 WHERE id_key = ?3 AND id = ?4 AND status = 'pending'`)
    .run(decision, reason, leadKey(leadId), leadId);
  if (result.changes === 1) return;
  const lead = sqlite.prepare<{ status: string }, [bigint, string]>(`SELECT status FROM leads WHERE id_key = ?1 AND id = ?2`).get(leadKey(leadId), leadId);
  throw new DecisionError(lead ? `Lead ${leadId} is already ${lead.status}; final results never change` : `No such lead: ${leadId}`);
}
