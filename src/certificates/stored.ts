// TrustedForm evidence as a lead's finding (store/findings/, kind "certificate", name "trustedform")
// and back: the evidence's own fields go in `detail` as JSON; outcome, reason and raw answer in
// columns of their own, as every kind of finding has them.
import type { Finding, FindingAnswer, FindingAtDecision, FindingKey } from "../store/findings/index.ts";
import type { CertificateEvidence } from "./evidence.ts";

export const TRUSTEDFORM_FINDING: FindingKey = { kind: "certificate", name: "trustedform" };

/**
 * What a lead's decision records when it judged a TrustedForm certificate nobody had asked about
 * (no finding: never claimed before the hold ended, e.g. TrustedForm too slow for the rate of
 * leads, a hold shorter than a poll, the job failing). Settled and holding no evidence, so the
 * lead's page and `leads show` tell it was decided unverified, and the setting judged it.
 */
export const NOT_ASKED_FINDING: FindingAtDecision = {
  ...TRUSTEDFORM_FINDING,
  outcome: "not_asked",
  reason: "TrustedForm was not asked before the decision was due",
};

/** The fields of the evidence kept in `detail`. */
type Detail = Omit<CertificateEvidence, "provider" | "outcome" | "reason" | "raw">;

export function findingAnswer(evidence: CertificateEvidence, checkedAt: number, nextAt: number): FindingAnswer {
  const { provider: _provider, outcome, reason, raw, ...detail } = evidence;
  return { outcome, reason, raw, detail: JSON.stringify(detail satisfies Detail), checkedAt, nextAt };
}

/** The evidence a finding holds; null while it holds none (pending: asked, no answer yet). */
export function evidenceOfFinding(finding: Finding): CertificateEvidence | null {
  if (finding.outcome !== "verified" && finding.outcome !== "not_verified" && finding.outcome !== "unreachable") return null;
  const detail = JSON.parse(finding.detail ?? "{}") as Detail;
  return { provider: "trustedform", outcome: finding.outcome, reason: finding.reason, raw: finding.raw, ...detail };
}

/** The lead's TrustedForm finding (null: never asked). */
export function trustedFormFindingOf(findings: readonly Finding[], leadId: string): Finding | null {
  return findings.find((f) => f.leadId === leadId && f.kind === TRUSTEDFORM_FINDING.kind && f.name === TRUSTEDFORM_FINDING.name) ?? null;
}
