// Which certificate_url values are TrustedForm certificates (docs/certificates.md "Which URLs").
//
// TrustedForm issues certificates as https://cert.trustedform.com/<certificate id>. The id is 40 or
// 80 letters, digits, "-" or "_" (older ids are 40 lower-case hex), or "0." followed by more for
// certificates issued through Facebook lead ads; ActiveProspect's own LeadConduit integration accepts
// exactly these (activeprospect/leadconduit-integration-trustedform, lib/helpers.js), and the v4 API
// reference bounds an id at 255 characters.
//
// The vendor's URL is never fetched with the operator's key: the client posts to the configured base
// URL with the id alone. So a lookalike host (cert.trustedform.com.evil.example,
// cert-trustedform.com, xn--…) cannot collect the key; it is simply not a TrustedForm certificate.
// What a lookalike could do is dodge verification, which is why claimsTrustedForm tells a URL that
// names TrustedForm's host family but is not a well-formed certificate URL (http, a port, a user,
// a query, an odd path) from one on some other host: the first is refused, not waved through.

export const TRUSTEDFORM_CERT_HOST = "cert.trustedform.com";

const ID_PATTERN = /^(?:[-_A-Za-z0-9]{40}|[-_A-Za-z0-9]{80}|0\.[-_.A-Za-z0-9]{1,253})$/;

const PREFIX = `https://${TRUSTEDFORM_CERT_HOST}/`;

/**
 * The certificate id of a well-formed TrustedForm certificate URL, else null. The URL must be exactly
 * the prefix and an id (scheme and host in any case): no port, user, query, fragment, trailing dot,
 * "..", percent-escape or second segment, any of which would make it something a certificate URL is not.
 */
export function trustedFormCertificateId(certificateUrl: string): string | null {
  const text = certificateUrl.trim();
  if (text.slice(0, PREFIX.length).toLowerCase() !== PREFIX) return null;
  const id = text.slice(PREFIX.length);
  return ID_PATTERN.test(id) ? id : null;
}

/** Whether `certificateUrl` is a TrustedForm certificate this service can verify with the API. */
export function isTrustedFormUrl(certificateUrl: string): boolean {
  return trustedFormCertificateId(certificateUrl) !== null;
}

/**
 * Whether the URL is on TrustedForm's own domain (trustedform.com or a subdomain, any scheme or port),
 * well-formed or not: with verification on, such a URL that is not a verifiable certificate is refused
 * as "not a TrustedForm certificate URL" instead of falling back to the generic reachability check.
 */
export function claimsTrustedForm(certificateUrl: string): boolean {
  const url = parse(certificateUrl);
  if (!url) return false;
  // URL has lower-cased the host; a trailing dot names the same host.
  const host = url.hostname.replace(/\.$/, "");
  return host === "trustedform.com" || host.endsWith(".trustedform.com");
}

function parse(text: string): URL | null {
  try {
    return new URL(text.trim());
  } catch {
    return null;
  }
}

/** What the decision path does with a certificate_url: verify it with TrustedForm, refuse it as a malformed one, or treat it generically. */
export type CertificateUrlKind = { kind: "trustedform"; id: string } | { kind: "trustedform_malformed" } | { kind: "other" };

export function classifyCertificateUrl(certificateUrl: string): CertificateUrlKind {
  const id = trustedFormCertificateId(certificateUrl);
  if (id !== null) return { kind: "trustedform", id };
  return claimsTrustedForm(certificateUrl) ? { kind: "trustedform_malformed" } : { kind: "other" };
}
