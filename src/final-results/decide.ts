// The post-posting checks of docs/contract.md §7 as one pure rule, in the contract's order.
import type { FinalResult } from "../callbacks/payload.ts";
import { REASON_CERTIFICATE, REASON_OPERATOR, REASON_SUPPRESSED } from "../contract/texts.ts";

// Defined with the callback message that carries it (callbacks/ sits below final-results/).
export type { FinalResult };

export interface PostPostingChecks {
  /** Is the number on the suppression list now, at the end of the hold? */
  suppressedNow: boolean;
  /** An operator decision recorded during the hold, if any. */
  operatorDecision: { decision: "accept" | "reject"; reason: string | null } | null;
  /** Certificate verification: null when it is off (or was not needed). */
  certificate: { verified: true } | { verified: false; detail: string } | null;
}

export function decideFinalResult(checks: PostPostingChecks): FinalResult {
  if (checks.suppressedNow) return { status: "rejected", reason: REASON_SUPPRESSED };
  const operator = checks.operatorDecision;
  if (operator?.decision === "reject")
    return { status: "rejected", reason: operator.reason ? `${REASON_OPERATOR}: ${operator.reason}` : `${REASON_OPERATOR}.` };
  if (operator?.decision === "accept") return { status: "accepted" };
  if (checks.certificate && !checks.certificate.verified) return { status: "rejected", reason: `${REASON_CERTIFICATE}: ${checks.certificate.detail}` };
  return { status: "accepted" };
}

/** Whether the certificate check can change the outcome (so whether to spend a request on it). */
export function certificateCheckMatters(checks: Omit<PostPostingChecks, "certificate">): boolean {
  return !checks.suppressedNow && checks.operatorDecision === null;
}
