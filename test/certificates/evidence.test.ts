// Every documented TrustedForm answer, and the ways an answer can fail to be one, mapped to evidence
// and to the certificate.* facts (docs/certificates.md "Answers").
import { describe, expect, test } from "bun:test";
import { certificateFacts, evidenceFromAnswer, MAX_RAW_CHARS, type ProviderAnswer } from "../../src/certificates/index.ts";
import { CERTIFICATE_FACTS } from "../../src/policy/fields.ts";
import { EMAIL_ONLY_MATCH_BODY, json, NO_MATCH_BODY, RETAIN_RESULT_SINGULAR_BODY, VERIFIED_BODY } from "./fixtures.ts";

const http = (status: number, body: string, truncated = false): ProviderAnswer => ({ kind: "http", status, body, truncated });

describe("a 200 answer", () => {
  test("outcome success is verified, with matches, age, page URL, domain, expiry and the raw answer", () => {
    const body = json(VERIFIED_BODY);
    expect(evidenceFromAnswer(http(200, body))).toEqual({
      provider: "trustedform",
      outcome: "verified",
      reason: null,
      problem: null,
      http_status: 200,
      phone_match: true,
      email_match: true,
      age_seconds: 412,
      page_url: "https://quotes.example.com/auto?step=3",
      domain: "quotes.example.com",
      // retain's expiry (when this account's copy goes) wins over the insights property.
      expires_at: "2026-02-25T10:00:00.000Z",
      raw: body,
      raw_truncated: false,
    });
  });

  test("outcome failure is not verified, with the provider's reason and the matches it reported", () => {
    const evidence = evidenceFromAnswer(http(200, json(NO_MATCH_BODY)));
    expect(evidence).toMatchObject({ outcome: "not_verified", reason: "Lead match unsuccessful", phone_match: false, email_match: false, age_seconds: 90 });
    expect(evidence.problem).toBeNull();
  });

  test("a failure without a reason gets one that names what did not match", () => {
    const { reason: _, ...withoutReason } = NO_MATCH_BODY;
    expect(evidenceFromAnswer(http(200, json(withoutReason))).reason).toBe("the lead's phone and email do not match the certificate");
    const phoneOnly = { ...withoutReason, match_lead: { phone: "5125550134", result: { email_match: null, phone_match: false, success: false } } };
    expect(evidenceFromAnswer(http(200, json(phoneOnly))).reason).toBe("the lead's phone does not match the certificate");
    const emailOnly = { ...withoutReason, match_lead: { email: "x@example.com", result: { email_match: false, phone_match: null, success: false } } };
    expect(evidenceFromAnswer(http(200, json(emailOnly))).reason).toBe("the lead's email does not match the certificate");
  });

  test("a phone mismatch is not verified even when the email match made TrustedForm's outcome success (consent is to call that number)", () => {
    expect(evidenceFromAnswer(http(200, json(EMAIL_ONLY_MATCH_BODY)))).toMatchObject({
      outcome: "not_verified",
      reason: "the lead's phone does not match the certificate",
      phone_match: false,
      email_match: true,
    });
  });

  test("an email mismatch with the phone matching is verified, email_match false (a fact rules can read)", () => {
    const body = {
      ...VERIFIED_BODY,
      match_lead: { phone: "5125550134", email: "x@example.com", result: { phone_match: true, email_match: false, success: true } },
    };
    expect(evidenceFromAnswer(http(200, json(body)))).toMatchObject({ outcome: "verified", phone_match: true, email_match: false });
  });

  test("outcome success with match_lead's own success false is not verified (the two disagree; the stricter holds)", () => {
    const body = { ...VERIFIED_BODY, match_lead: { phone: "5125550134", result: { phone_match: false, email_match: null, success: false } } };
    expect(evidenceFromAnswer(http(200, json(body)))).toMatchObject({ outcome: "not_verified", phone_match: false, email_match: null });
  });

  test("retain.result (singular, as LeadConduit's code reads it) gives the expiry too; absent insights are null", () => {
    expect(evidenceFromAnswer(http(200, json(RETAIN_RESULT_SINGULAR_BODY)))).toMatchObject({
      outcome: "verified",
      expires_at: "2026-03-01T00:00:00Z",
      age_seconds: null,
      page_url: null,
      domain: null,
      email_match: null,
    });
  });

  test("fields of the wrong type are null, not guessed", () => {
    const body = { outcome: "success", insights: { properties: { age_seconds: "412", domain: 7, page_url: "", expires_at: "soon" } } };
    expect(evidenceFromAnswer(http(200, json(body)))).toMatchObject({ outcome: "verified", age_seconds: null, domain: null, page_url: null, expires_at: null });
  });

  test("outcome error is unreachable (TrustedForm: review and retry), with its reason", () => {
    expect(evidenceFromAnswer(http(200, json({ outcome: "error", reason: "temporary failure" })))).toMatchObject({
      outcome: "unreachable",
      problem: "unreadable",
      reason: "temporary failure",
    });
  });

  test("malformed JSON, a JSON array, an unknown outcome, or a cut body is unreachable, the raw text kept", () => {
    for (const body of ["{not json", "[1,2]", json({ outcome: "maybe" })]) {
      const evidence = evidenceFromAnswer(http(200, body));
      expect(evidence).toMatchObject({ outcome: "unreachable", problem: "unreadable", http_status: 200, raw: body });
    }
    expect(evidenceFromAnswer(http(200, json(VERIFIED_BODY), true))).toMatchObject({ outcome: "unreachable", raw_truncated: true });
  });
});

describe("answers about the certificate (not verified)", () => {
  test.each([
    [404, "certificate has expired or could not be found"],
    [410, "certificate has expired"],
    [400, "TrustedForm refused the certificate (HTTP 400)"],
    [422, "TrustedForm refused the certificate (HTTP 422)"],
  ])("HTTP %i without a body's reason: %s", (status, reason) => {
    expect(evidenceFromAnswer(http(status, "Not Found"))).toMatchObject({ outcome: "not_verified", reason, http_status: status, phone_match: null });
  });

  test("the body's reason is the provider's reason, made one bounded line", () => {
    const evidence = evidenceFromAnswer(http(410, json({ outcome: "error", reason: "Certificate\r\nexpired" })));
    expect(evidence.reason).toBe("Certificate expired");
    const long = evidenceFromAnswer(http(404, json({ reason: "x".repeat(1_000) })));
    expect(long.reason).toHaveLength(300);
  });
});

describe("answers that are not about the certificate (unreachable, retried)", () => {
  test.each([
    [401, "account", "TrustedForm refused the API key (HTTP 401)"],
    [402, "account", "the TrustedForm account is inactive or out of funds (HTTP 402)"],
    [403, "account", "TrustedForm refused the operation for this account (HTTP 403)"],
    [408, "busy", "TrustedForm is busy (HTTP 408)"],
    [429, "busy", "TrustedForm is busy (HTTP 429)"],
    [500, "server", "TrustedForm answered HTTP 500"],
    [503, "server", "TrustedForm answered HTTP 503"],
    [302, "server", "TrustedForm answered HTTP 302"],
  ])("HTTP %i is unreachable (%s)", (status, problem, reason) => {
    expect(evidenceFromAnswer(http(status, "<html>oops</html>"))).toMatchObject({ outcome: "unreachable", problem, reason, http_status: status });
  });

  test("a timeout and a network error are unreachable, with no status and no raw answer", () => {
    expect(evidenceFromAnswer({ kind: "timeout", timeoutMs: 5000 })).toMatchObject({
      outcome: "unreachable",
      problem: "timeout",
      reason: "TrustedForm did not answer within 5000 ms",
      http_status: null,
      raw: null,
    });
    expect(evidenceFromAnswer({ kind: "network", message: "ECONNREFUSED" })).toMatchObject({
      problem: "network",
      reason: "TrustedForm could not be reached: ECONNREFUSED",
    });
  });
});

test("the raw answer is bounded", () => {
  const evidence = evidenceFromAnswer(http(500, "y".repeat(MAX_RAW_CHARS + 10)));
  expect(evidence.raw).toHaveLength(MAX_RAW_CHARS);
  expect(evidence.raw_truncated).toBe(true);
});

describe("certificate.* facts", () => {
  test("name exactly the facts rules may read, from the evidence", () => {
    const facts = certificateFacts(evidenceFromAnswer(http(200, json(VERIFIED_BODY))));
    expect(Object.keys(facts).sort()).toEqual([...CERTIFICATE_FACTS].sort());
    expect(facts).toEqual({
      verified: true,
      phone_match: true,
      email_match: true,
      age_seconds: 412,
      domain: "quotes.example.com",
      page_url: "https://quotes.example.com/auto?step=3",
    });
  });

  test("not verified and unreachable are both verified: false; unknown matches stay null", () => {
    expect(certificateFacts(evidenceFromAnswer(http(404, "")))).toMatchObject({ verified: false, phone_match: null, age_seconds: null });
    expect(certificateFacts(evidenceFromAnswer({ kind: "timeout", timeoutMs: 1 })).verified).toBe(false);
  });
});
