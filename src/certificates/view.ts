// A lead's certificate evidence as the operator reads it, on the console's lead page and in
// `leads show` (both render these fields): what TrustedForm answered, and whether the lead was
// accepted without a verified certificate (--trustedform-unreachable accept). Never the API key:
// the evidence holds none.
import type { Finding } from "../store/findings/index.ts";
import type { CertificateEvidence } from "./evidence.ts";
import { evidenceOfFinding, TRUSTEDFORM_FINDING } from "./stored.ts";

/** What TrustedForm answered (the evidence's own fields, as stored), with how and when it was asked. */
export interface EvidenceView
  extends Pick<
    CertificateEvidence,
    "reason" | "phone_match" | "email_match" | "age_seconds" | "page_url" | "domain" | "expires_at" | "http_status" | "raw" | "raw_truncated"
  > {
  provider: string;
  /** pending (asked, no answer yet), verified, not_verified, unreachable, or not_asked (decided before anyone asked: stored.ts NOT_ASKED_FINDING). */
  outcome: string;
  /** Accepted without a verified certificate: the provider had not answered when the lead was decided. */
  accepted_unverified: boolean;
  attempts: number;
  /** Null when no request was made (a malformed URL, or not asked before the decision). */
  first_asked_at: string | null;
  answered_at: string | null;
  /** While unreachable on a pending lead: the next try. */
  next_try_at: string | null;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The lead's TrustedForm evidence, if it has a finding: asked about, or decided before anyone asked (`status`: the lead's). */
export function evidenceView(findings: readonly Finding[], status: string): EvidenceView | null {
  const finding = findings.find((f) => f.kind === TRUSTEDFORM_FINDING.kind && f.name === TRUSTEDFORM_FINDING.name);
  if (!finding) return null;
  const evidence = evidenceOfFinding(finding);
  const asked = finding.attempts > 0;
  return {
    provider: "TrustedForm",
    outcome: finding.outcome,
    accepted_unverified: status === "accepted" && finding.outcome !== "verified",
    reason: finding.reason,
    phone_match: evidence?.phone_match ?? null,
    email_match: evidence?.email_match ?? null,
    age_seconds: evidence?.age_seconds ?? null,
    page_url: evidence?.page_url ?? null,
    domain: evidence?.domain ?? null,
    expires_at: evidence?.expires_at ?? null,
    http_status: evidence?.http_status ?? null,
    attempts: finding.attempts,
    first_asked_at: asked ? iso(finding.firstAt) : null,
    answered_at: asked ? iso(finding.checkedAt) : null,
    next_try_at: status === "pending" && finding.outcome === "unreachable" ? iso(finding.nextAt) : null,
    raw: finding.raw,
    raw_truncated: evidence?.raw_truncated ?? false,
  };
}

const yesNo = (value: boolean | null) => (value === null ? null : value ? "yes" : "no");

/** The evidence as labelled lines (the raw answer apart: each view shows it its own way). */
export function evidenceFields(view: EvidenceView): [string, string | null][] {
  const outcome = view.accepted_unverified ? `${view.outcome}: accepted unverified` : view.outcome;
  return [
    ["provider", view.provider],
    ["outcome", outcome],
    ["reason", view.reason],
    ["phone match", yesNo(view.phone_match)],
    ["email match", yesNo(view.email_match)],
    ["age", view.age_seconds === null ? null : `${view.age_seconds} s`],
    ["page URL", view.page_url],
    ["domain", view.domain],
    ["expires", view.expires_at],
    ["HTTP status", view.http_status === null ? null : String(view.http_status)],
    ["attempts", String(view.attempts)],
    ["first asked", view.first_asked_at],
    ["answered", view.answered_at],
    ["next try", view.next_try_at],
  ];
}
