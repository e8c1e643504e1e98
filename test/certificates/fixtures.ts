// TrustedForm v4 answers in the shapes ActiveProspect documents (docs/certificates.md "Sources"):
// the Run Certificate Operations example and the LeadConduit integration's v4 fixtures, with our values.

export const VERIFIED_BODY = {
  outcome: "success",
  // The v4 reference's own example writes the string "null" here.
  reason: "null",
  match_lead: { email: "jane@example.com", phone: "5125550134", result: { email_match: true, phone_match: true, success: true } },
  retain: {
    reference: "lead-0001",
    vendor: "acme",
    results: { expires_at: "2026-02-25T10:00:00.000Z", masked_cert_url: null, previously_retained: false },
  },
  insights: {
    properties: {
      age_seconds: 412,
      domain: "quotes.example.com",
      expires_at: "2026-02-26T10:00:00Z",
      page_url: "https://quotes.example.com/auto?step=3",
    },
  },
};

/** Phone and email both differ from what the certificate recorded: match_lead fails, and so the outcome. */
export const NO_MATCH_BODY = {
  outcome: "failure",
  reason: "Lead match unsuccessful",
  match_lead: { email: "jane@example.com", phone: "5125550134", result: { email_match: false, phone_match: false, success: false } },
  retain: { reference: "lead-0001", vendor: "acme", results: { expires_at: "2026-02-25T10:00:00.000Z", previously_retained: false } },
  insights: { properties: { age_seconds: 90, domain: "quotes.example.com", page_url: "https://quotes.example.com/" } },
};

/** The phone differs but the email matches: match_lead succeeds ("any match"), so does TrustedForm's outcome. */
export const EMAIL_ONLY_MATCH_BODY = {
  ...VERIFIED_BODY,
  reason: null,
  match_lead: { email: "jane@example.com", phone: "5125550134", result: { email_match: true, phone_match: false, success: true } },
};

/** LeadConduit's v4 code reads retain.result (singular); a body in that shape keeps its expiry. */
export const RETAIN_RESULT_SINGULAR_BODY = {
  outcome: "success",
  reason: null,
  match_lead: { phone: "5125550134", result: { email_match: null, phone_match: true, success: true } },
  retain: { reference: "lead-0002", vendor: "acme", result: { expires_at: "2026-03-01T00:00:00Z", previously_retained: true } },
};

export const json = (value: unknown) => JSON.stringify(value);
