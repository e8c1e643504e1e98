// What a lead's TrustedForm evidence means when the lead is decided (docs/contract.md §11): verified
// goes on to the final rules with its certificate.* facts; not verified rejects with the
// provider's reason; no answer yet (TrustedForm unreachable through the hold, or never asked) is
// the operator's --trustedform-unreachable. Pure: the evidence is read by the caller.
import { type CertificateEvidence, type CertificateFacts, certificateFacts, NOT_ASKED_FINDING } from "../certificates/index.ts";
import type { FindingAtDecision } from "../store/findings/index.ts";
import { certificateNotVerified, TRUSTEDFORM_MALFORMED, TRUSTEDFORM_NO_ANSWER } from "../contract/texts.ts";
import type { CertificateCheck } from "./decide.ts";

/** How a lead's certificate is judged when it is decided. */
export type CertificateSource =
  /** By the reachability check run before (null: none: verification off, no URL, or not needed). */
  | { kind: "checked"; check: CertificateCheck }
  /** By its TrustedForm evidence, read with the lead's other facts; `malformed`: on TrustedForm's domain, not a certificate URL. */
  | { kind: "trustedform"; onUnreachable: "reject" | "accept"; malformed: boolean };

export interface CertificateJudgement {
  check: CertificateCheck;
  /** The certificate.* facts final rules read; absent without TrustedForm evidence. */
  facts?: CertificateFacts;
  /** Passed by --trustedform-unreachable accept alone: no answer from TrustedForm by the decision. */
  acceptedUnverified?: true;
}

const NO_FACTS: CertificateFacts = { verified: false, phone_match: null, email_match: null, age_seconds: null, domain: null, page_url: null };

/** The judgement of `evidence` (null: no answer stored) under the operator's setting. */
export function judgeTrustedForm(evidence: CertificateEvidence | null, source: Extract<CertificateSource, { kind: "trustedform" }>): CertificateJudgement {
  if (source.malformed) return { check: { verified: false, reason: certificateNotVerified(TRUSTEDFORM_MALFORMED) }, facts: NO_FACTS };
  if (evidence?.outcome === "verified") return { check: { verified: true }, facts: certificateFacts(evidence) };
  if (evidence?.outcome === "not_verified")
    return {
      check: { verified: false, reason: certificateNotVerified(evidence.reason ?? "TrustedForm did not verify the certificate") },
      facts: certificateFacts(evidence),
    };
  // Unreachable until now: the vendor is told the provider could not be asked, not the provider's HTTP status.
  if (source.onUnreachable === "reject") return { check: { verified: false, reason: certificateNotVerified(TRUSTEDFORM_NO_ANSWER) }, facts: NO_FACTS };
  // Accepted unverified: certificate.verified is false to the final rules, so a rule can still refuse it.
  return { check: { verified: true }, facts: NO_FACTS, acceptedUnverified: true };
}

/**
 * The finding a decision records with a lead judged by TrustedForm (docs/certificates.md "The
 * decision"): "not_asked", kept only where the lead has no TrustedForm finding, so a lead decided
 * before anyone asked is marked durably, in the decision's transaction, and evidence is never overwritten.
 */
export const findingAtDecision = (source: CertificateSource): FindingAtDecision | null =>
  source.kind === "trustedform" && !source.malformed ? NOT_ASKED_FINDING : null;
