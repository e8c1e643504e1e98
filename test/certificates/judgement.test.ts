// The pure parts of TrustedForm on the decision path: when an unreachable TrustedForm is asked again
// (certificates/retry.ts), what the evidence means when the lead is decided under each setting
// (final-results/trustedform.ts), the evidence kept as a finding and read back (certificates/stored.ts),
// and the operator's view of it (certificates/view.ts).
import { describe, expect, test } from "bun:test";
import { evidenceFromAnswer, type CertificateEvidence } from "../../src/certificates/index.ts";
import { nextTryAt, RETRY_FIRST_MS, RETRY_MAX_MS } from "../../src/hold/retry.ts";
import { evidenceOfFinding, findingAnswer, NOT_ASKED_FINDING, TRUSTEDFORM_FINDING } from "../../src/certificates/stored.ts";
import { evidenceFields, evidenceView } from "../../src/certificates/view.ts";
import { findingAtDecision, judgeTrustedForm } from "../../src/final-results/trustedform.ts";
import type { Finding } from "../../src/store/findings/index.ts";

const http = (status: number, body: unknown) =>
  evidenceFromAnswer({ kind: "http", status, truncated: false, body: typeof body === "string" ? body : JSON.stringify(body) });
const VERIFIED = http(200, {
  outcome: "success",
  match_lead: { result: { success: true, phone_match: true, email_match: false } },
  insights: { properties: { age_seconds: 120, domain: "quotes.example.com", page_url: "https://quotes.example.com/q" } },
  retain: { results: { expires_at: "2027-01-01T00:00:00Z" } },
});
const EXPIRED = http(410, { outcome: "error", reason: "TrustedForm certificate has expired" });
const DOWN = http(500, "down");
const REJECTING = { kind: "trustedform", onUnreachable: "reject", malformed: false } as const;
const ACCEPTING = { ...REJECTING, onUnreachable: "accept" } as const;

describe("nextTryAt", () => {
  const far = 3_600_000;
  test("doubles from the first wait up to the longest", () => {
    expect([1, 2, 3, 4].map((n) => nextTryAt(0, n, far, 1_000))).toEqual([RETRY_FIRST_MS, 2 * RETRY_FIRST_MS, 4 * RETRY_FIRST_MS, 8 * RETRY_FIRST_MS]);
    expect(nextTryAt(0, 30, far, 1_000)).toBe(RETRY_MAX_MS);
  });
  test("a try that would start too late for its answer to count is moved to the last moment one can", () => {
    expect(nextTryAt(0, 5, 5_000, 1_000)).toBe(4_000);
  });
  test("past that moment, the backoff as it is (the lead is decided without it)", () => {
    expect(nextTryAt(4_500, 1, 5_000, 1_000)).toBe(4_500 + RETRY_FIRST_MS);
  });
});

describe("judgeTrustedForm", () => {
  test("verified: no failure, the evidence's certificate.* facts for the final rules", () => {
    expect(judgeTrustedForm(VERIFIED, REJECTING)).toEqual({
      check: { verified: true },
      facts: {
        verified: true,
        phone_match: true,
        email_match: false,
        age_seconds: 120,
        domain: "quotes.example.com",
        page_url: "https://quotes.example.com/q",
      },
    });
  });
  test("not verified: rejected with the provider's reason, whatever the setting", () => {
    for (const source of [REJECTING, ACCEPTING])
      expect(judgeTrustedForm(EXPIRED, source).check).toEqual({
        verified: false,
        reason: "Certificate could not be verified: TrustedForm certificate has expired",
      });
  });
  test.each([
    ["unreachable", DOWN],
    ["never answered", null],
  ] as [string, CertificateEvidence | null][])(
    "%s at the decision: rejected under reject, accepted with certificate.verified false under accept",
    (_name, evidence) => {
      expect(judgeTrustedForm(evidence, REJECTING).check).toEqual({
        verified: false,
        reason: "Certificate could not be verified: TrustedForm could not be reached before the decision was due",
      });
      expect(judgeTrustedForm(evidence, ACCEPTING)).toMatchObject({ check: { verified: true }, facts: { verified: false, age_seconds: null } });
    },
  );
  test("accepted unverified is told apart from verified (the final_result line says so)", () => {
    expect(judgeTrustedForm(null, ACCEPTING).acceptedUnverified).toBe(true);
    expect(judgeTrustedForm(VERIFIED, ACCEPTING).acceptedUnverified).toBeUndefined();
  });
  test("the decision marks a TrustedForm certificate URL not_asked (kept only where no finding is), nothing else", () => {
    expect(findingAtDecision(ACCEPTING)).toEqual(NOT_ASKED_FINDING);
    expect(findingAtDecision(REJECTING)).toEqual(NOT_ASKED_FINDING);
    expect(findingAtDecision({ ...ACCEPTING, malformed: true })).toBeNull();
    expect(findingAtDecision({ kind: "checked", check: null })).toBeNull();
  });
  test("a URL on TrustedForm's domain that is no certificate URL is rejected, verified evidence or not", () => {
    expect(judgeTrustedForm(VERIFIED, { ...ACCEPTING, malformed: true }).check).toEqual({
      verified: false,
      reason: "Certificate could not be verified: not a valid TrustedForm certificate URL",
    });
  });
});

const finding = (evidence: CertificateEvidence, extra: Partial<Finding> = {}): Finding => ({
  leadId: "lead-1",
  ...TRUSTEDFORM_FINDING,
  ...findingAnswer(evidence, 2_000, 2_500),
  attempts: 2,
  firstAt: 1_000,
  ...extra,
});

describe("evidence as a finding", () => {
  test("reads back as the evidence it was", () => {
    for (const evidence of [VERIFIED, EXPIRED, DOWN]) expect(evidenceOfFinding(finding(evidence))).toEqual(evidence);
  });
  test("a pending finding (asked, no answer yet) holds no evidence", () => {
    expect(evidenceOfFinding(finding(DOWN, { outcome: "pending", detail: null }))).toBeNull();
  });
});

describe("the operator's view", () => {
  test("the evidence's fields, times in ISO 8601, and no API key to show", () => {
    const view = evidenceView([finding(VERIFIED)], "accepted")!;
    expect(view).toMatchObject({
      provider: "TrustedForm",
      outcome: "verified",
      accepted_unverified: false,
      phone_match: true,
      email_match: false,
      age_seconds: 120,
      attempts: 2,
    });
    expect(view.answered_at).toBe(new Date(2_000).toISOString());
    expect(evidenceFields(view)).toContainEqual(["email match", "no"]);
  });
  test("a lead accepted without a verified certificate is marked unverified; a pending one shows its next try", () => {
    expect(evidenceFields(evidenceView([finding(DOWN)], "accepted")!)).toContainEqual(["outcome", "unreachable: accepted unverified"]);
    expect(evidenceView([finding(DOWN)], "pending")).toMatchObject({ accepted_unverified: false, next_try_at: new Date(2_500).toISOString() });
  });
  test("no finding: nothing to show", () => {
    expect(evidenceView([], "accepted")).toBeNull();
  });
  test("decided before anyone asked (the decision's not_asked finding): accepted unverified, no request times", () => {
    const notAsked: Finding = { leadId: "lead-1", ...NOT_ASKED_FINDING, detail: null, raw: null, attempts: 0, firstAt: 3_000, checkedAt: 3_000, nextAt: 3_000 };
    expect(evidenceOfFinding(notAsked)).toBeNull();
    const view = evidenceView([notAsked], "accepted")!;
    expect(view).toMatchObject({ outcome: "not_asked", accepted_unverified: true, attempts: 0, first_asked_at: null, answered_at: null });
    expect(evidenceFields(view)).toContainEqual(["outcome", "not_asked: accepted unverified"]);
    expect(evidenceFields(view)).toContainEqual(["reason", "TrustedForm was not asked before the decision was due"]);
    expect(evidenceView([notAsked], "rejected")).toMatchObject({ outcome: "not_asked", accepted_unverified: false });
  });
});
