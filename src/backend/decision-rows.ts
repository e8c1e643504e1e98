// The rows the set-based decision statements read and write, on either database (pg-worker.ts,
// sqlite-worker.ts): a due lead's checks as a statement answers them, and a decision as the JSON
// array element the recording statement takes.
import { leadKey } from "../db/schema.ts";
import type { Decision } from "../final-results/job.ts";
import type { ChecksNow } from "../final-results/record.ts";

/** The leads' keys and ids, as the JSON array the checks statement reads. */
export const leadKeysJson = (leads: { id: string }[]): string => JSON.stringify(leads.map((lead) => ({ key: leadKey(lead.id).toString(), id: lead.id })));

export interface CheckRow {
  id: string;
  operator_decision: "accept" | "reject" | null;
  operator_reason: string | null;
  /** A boolean on PostgreSQL, 0 or 1 on SQLite. */
  suppressed: boolean | number;
}

export const checksOfRow = (row: CheckRow): ChecksNow => ({
  suppressedNow: Boolean(row.suppressed),
  operatorDecision: row.operator_decision ? { decision: row.operator_decision, reason: row.operator_reason } : null,
});

/** A decision with the checks it was made on (recorded only if they still hold). */
export function decisionRow({ lead, checks, result, payload }: Decision) {
  return {
    key: leadKey(lead.id).toString(),
    id: lead.id,
    phone: lead.phoneE164,
    status: result.status,
    reason: result.status === "rejected" ? result.reason : null,
    payload,
    suppressed: checks.suppressedNow,
    operatorDecision: checks.operatorDecision?.decision ?? null,
    operatorReason: checks.operatorDecision?.reason ?? null,
  };
}
