// The post-posting checks of docs/contract.md §7, then the policy's final-stage checks (§11) and
// final rules (§10), as one pure rule, in the contract's order.
import type { FinalResult } from "../callbacks/payload.ts";
import { REASON_OPERATOR, REASON_SUPPRESSED } from "../contract/texts.ts";

// Defined with the callback message that carries it (callbacks/ sits below final-results/).
export type { FinalResult };

/** The certificate's verdict: null when none applies (verification off, no URL); a failure carries the whole reason the vendor reads. */
export type CertificateCheck = { verified: true } | { verified: false; reason: string } | null;

export interface PostPostingChecks {
  /** Is the number on the suppression list now, at the end of the hold? */
  suppressedNow: boolean;
  /** An operator decision recorded during the hold, if any. */
  operatorDecision: { decision: "accept" | "reject"; reason: string | null } | null;
  /** Certificate verification (the reachability check, or TrustedForm's evidence): null when it is off (or was not needed). */
  certificate: CertificateCheck;
  /** The certificate passed by --trustedform-unreachable accept alone (no TrustedForm answer): told in the final_result line, not a reason. */
  acceptedUnverified?: boolean;
  /** The refusals of the policy's final-stage checks in scope (a fail's reason, on_error's rejection), in document order (none: absent or empty). */
  failingChecks?: readonly string[];
  /** The reasons of the policy's final rules in scope that the lead fails, in document order (none: absent or empty). */
  failingFinalRules?: readonly string[];
}

/**
 * An operator's decision is final (§7: "that decision"): an accept wins over final checks and
 * rules, which judge only the leads nobody decided by hand. The first that rejects gives the
 * reasons: the §7 checks, the certificate, the final-stage checks (§11: each refusing check's
 * reason), then the final rules. So a suppressed number or a failed certificate is rejected for
 * that reason alone, and a lead a check refused is not also told which final rules it fails (a
 * rule may read that check's answer: its refusal would restate the check's).
 */
export function decideFinalResult(checks: PostPostingChecks): FinalResult {
  if (checks.suppressedNow) return { status: "rejected", reasons: [REASON_SUPPRESSED] };
  const operator = checks.operatorDecision;
  if (operator?.decision === "reject")
    return { status: "rejected", reasons: [operator.reason ? `${REASON_OPERATOR}: ${operator.reason}` : `${REASON_OPERATOR}.`] };
  if (operator?.decision === "accept") return { status: "accepted" };
  if (checks.certificate && !checks.certificate.verified) return { status: "rejected", reasons: [checks.certificate.reason] };
  const refusedByChecks = checks.failingChecks ?? [];
  if (refusedByChecks.length > 0) return { status: "rejected", reasons: [...refusedByChecks] };
  const failing = checks.failingFinalRules ?? [];
  if (failing.length > 0) return { status: "rejected", reasons: [...failing] };
  return { status: "accepted" };
}

/** Whether no §7 check decided the lead yet: only then can the certificate check or final rules change the outcome (so whether to spend a request, or a read of the lead's fields, on them). */
export function certificateCheckMatters(checks: Omit<PostPostingChecks, "certificate">): boolean {
  return !checks.suppressedNow && checks.operatorDecision === null;
}
