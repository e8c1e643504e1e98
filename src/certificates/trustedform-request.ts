// The one request this service sends TrustedForm (docs/certificates.md "The request"): the v4
// certificate operations retain + match_lead + insights, POSTed for one certificate id to the
// configured base URL with the operator's API key. Pure, so its shape is tested without a network.

/** TrustedForm's production API: certificate ids are paths under it. */
export const TRUSTEDFORM_DEFAULT_BASE_URL = "https://cert.trustedform.com";

/**
 * The Insights properties asked for: what the evidence keeps. Insights are billed per property
 * returned, so only these, not the whole list the API offers.
 */
export const INSIGHTS_PROPERTIES = ["age_seconds", "domain", "expires_at", "page_url"] as const;

export interface TrustedFormLead {
  /** The lead's phone as TrustedForm's match_lead compares it (matchLeadPhone). */
  phone: string;
  email: string | null;
  /** Stored with the retained certificate, to find the lead again from TrustedForm's side: our lead id. */
  reference: string;
  /** The vendor's name, stored likewise. */
  vendor: string;
}

export interface TrustedFormRequest {
  url: URL;
  init: { method: "POST"; headers: Record<string, string>; body: string };
}

/**
 * The request for certificate `id` (as trustedFormCertificateId gave it). The key travels only in the
 * Authorization header of a request to `baseUrl`, never to the vendor's URL; never log `init.headers`.
 */
export function trustedFormRequest(id: string, lead: TrustedFormLead, options: { baseUrl: string | URL; apiKey: string }): TrustedFormRequest {
  const base = new URL(options.baseUrl);
  if (!base.pathname.endsWith("/")) base.pathname += "/";
  const body = {
    // match_lead is required with retain; an absent email is left out rather than sent blank.
    match_lead: lead.email ? { phone: lead.phone, email: lead.email } : { phone: lead.phone },
    retain: { reference: lead.reference, vendor: lead.vendor },
    insights: { properties: INSIGHTS_PROPERTIES },
  };
  return {
    url: new URL(encodeURIComponent(id), base),
    init: {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        // Without it an account still set to an older version would answer in that version's shape.
        "api-version": "4.0",
        // HTTP Basic, user "API", the key as password (v4 reference, "Security").
        authorization: basicAuthorization(options.apiKey),
      },
      body: JSON.stringify(body),
    },
  };
}

export function basicAuthorization(apiKey: string): string {
  return `Basic ${Buffer.from(`API:${apiKey}`).toString("base64")}`;
}

/**
 * The lead's E.164 phone (+1NXXNXXXXXX) as the consumer typed it into the form, give or take the
 * punctuation TrustedForm strips before hashing (spaces, hyphens, brackets): the ten national digits.
 * A "+1" would make the hash differ from the recorded one.
 */
export function matchLeadPhone(phoneE164: string): string {
  return phoneE164.startsWith("+1") ? phoneE164.slice(2) : phoneE164.replace(/^\+/, "");
}
