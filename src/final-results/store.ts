// The SQL of final results: claim pending leads whose hold is over, and record a decision.
// Claims are leases (locked_until + claim_token); a decision is written only by the holder of the
// current token, so a worker whose lease expired cannot overwrite a newer decision.
import type { Database } from "bun:sqlite";
import type { FinalResult } from "./decide.ts";
import { leadKey, phoneClaimKey } from "../db/schema.ts";

export interface DueLead {
  id: string;
  vendor_id: string;
  phone_e164: string;
  certificate_url: string | null;
  vendor_campaign_name: string;
}

export interface LeadChecksNow {
  suppressed: number;
  operator_decision: "accept" | "reject" | null;
  operator_reason: string | null;
}

export function createFinalResultStore(sqlite: Database) {
  // Raw SQL here: UPDATE … WHERE id_key IN (subquery) RETURNING is the claim, and drizzle's builder
  // cannot express it as one statement. A lead is found by its key and id (leadKey).
  const claim = sqlite.prepare<DueLead, [number, string, number, number]>(`
    UPDATE leads SET locked_until = ?1, claim_token = ?2
    WHERE id_key IN (
      SELECT id_key FROM leads
      WHERE status = 'pending' AND decide_after <= ?3 AND (locked_until IS NULL OR locked_until < ?3)
      ORDER BY decide_after LIMIT ?4)
    RETURNING id, vendor_id, phone_e164, certificate_url, vendor_campaign_name`);
  const checksNow = sqlite.prepare<LeadChecksNow, [bigint, string]>(`
    SELECT EXISTS (SELECT 1 FROM suppressions s WHERE s.phone_e164 = l.phone_e164) AS suppressed,
           operator_decision, operator_reason
    FROM leads l WHERE id_key = ?1 AND id = ?2`);
  const finish = sqlite.prepare<unknown, [string, number, string | null, bigint, string, string]>(`
    UPDATE leads SET status = ?1, decided_at = ?2, rejection_reason = ?3, locked_until = NULL, claim_token = NULL
    WHERE id_key = ?4 AND id = ?5 AND claim_token = ?6 AND status = 'pending'`);
  const releaseCallback = sqlite.prepare<unknown, [string, number, bigint]>(`
    UPDATE callbacks SET status = 'pending', payload = ?1, next_attempt_at = ?2, updated_at = ?2
    WHERE lead_key = ?3 AND status = 'held'`);
  // An accepted lead blocks its number from its final acceptance on; a rejected one not at all.
  const renewClaim = sqlite.prepare<unknown, [number, number, string]>(`UPDATE phone_claims SET claimed_at = ?1 WHERE phone_number = ?2 AND lead_id = ?3`);
  const dropClaim = sqlite.prepare<unknown, [number, string]>(`DELETE FROM phone_claims WHERE phone_number = ?1 AND lead_id = ?2`);

  return {
    claimDueLeads: (now: number, limit: number, leaseMs: number, token: string) => claim.all(now + leaseMs, token, now, limit),
    /** Suppression and operator decision as they stand now (read inside the deciding transaction). */
    checksNow: (leadId: string) => checksNow.get(leadKey(leadId), leadId),
    /**
     * Writes the decision if `token` still holds the lead; returns false (and writes nothing) if
     * the lease was lost. Must run inside a transaction: the lead, its callback and its phone
     * claim change together.
     */
    recordDecision(lead: DueLead, token: string, result: FinalResult, now: number, callbackPayload: string): boolean {
      const reason = result.status === "rejected" ? result.reason : null;
      const key = leadKey(lead.id);
      if (finish.run(result.status, now, reason, key, lead.id, token).changes !== 1) return false;
      releaseCallback.run(callbackPayload, now, key);
      if (result.status === "accepted") renewClaim.run(now, phoneClaimKey(lead.phone_e164), lead.id);
      else dropClaim.run(phoneClaimKey(lead.phone_e164), lead.id);
      return true;
    },
  };
}

export type FinalResultStore = ReturnType<typeof createFinalResultStore>;
