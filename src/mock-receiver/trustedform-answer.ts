// What the mock's TrustedForm endpoint answers for one request, in the v4 API's shapes
// (docs/certificates.md "The mock"). The reason texts are the mock's own: TrustedForm does not
// publish its exact wording, and tests should read them from here, not assume the real ones.
import type { Answer } from "./behaviour.ts";

export const CERTIFICATE_SCENARIOS = [
  "verified",
  "no_phone_match",
  "no_match",
  "expired",
  "unknown",
  "server_error",
  "slow",
  "hang",
  "bad_key",
  "malformed",
] as const;
export type CertificateScenario = (typeof CERTIFICATE_SCENARIOS)[number];

export interface CertificateBehaviour {
  scenario: CertificateScenario;
  /** Wait this long before answering; "slow" waits 2000 ms unless told. */
  delayMs?: number;
  /** Play the scenario for the first N requests for a certificate, then answer verified (a provider down, then back). */
  failFirst?: number;
  /** Insights values a verified answer reports; defaults below. */
  ageSeconds?: number;
  pageUrl?: string;
  domain?: string;
}

export const SLOW_DEFAULT_MS = 2_000;
const RETAINED_FOR_MS = 90 * 86_400_000;

/** The parts of a request the answer depends on, read once by the endpoint. */
export interface CertificateAsk {
  token: string;
  method: string;
  apiVersion: string | null;
  authorization: string | null;
  body: unknown;
}

/** The answer for `ask` under `behaviour` (already resolved for this request: failFirst counted). */
export function answerCertificate(ask: CertificateAsk, behaviour: CertificateBehaviour, now = new Date()): Answer {
  const refused = refusal(ask);
  if (refused) return refused;
  const delayMs = behaviour.delayMs ?? (behaviour.scenario === "slow" ? SLOW_DEFAULT_MS : 0);
  switch (behaviour.scenario) {
    case "hang":
      return { action: "hang" };
    case "bad_key":
      return respond(401, { outcome: "error", reason: "Incorrect API key" }, delayMs);
    case "expired":
      return respond(410, { outcome: "error", reason: "TrustedForm certificate has expired" }, delayMs);
    case "unknown":
      return respond(404, { outcome: "error", reason: "TrustedForm certificate could not be found" }, delayMs);
    case "server_error":
      return { action: "respond", status: 500, delayMs, body: "Internal Server Error" };
    case "malformed":
      return { action: "respond", status: 200, delayMs, body: "<html><body>TrustedForm</body></html>" };
    default:
      return respond(200, operations(ask.body as Operations, behaviour, now), delayMs);
  }
}

/** What the real API would refuse before looking at the certificate: wrong method, no key, no v4, no lead to match. */
function refusal(ask: CertificateAsk): Answer | null {
  if (ask.method !== "POST") return respond(405, { outcome: "error", reason: "Use POST to run certificate operations" });
  if (!hasApiKey(ask.authorization)) return respond(401, { outcome: "error", reason: "Incorrect API key" });
  if (ask.apiVersion !== "4.0") return respond(400, { outcome: "error", reason: "This mock speaks api-version 4.0 only" });
  const body = ask.body as Operations | undefined;
  if (body === null || typeof body !== "object" || Array.isArray(body)) return respond(400, { outcome: "error", reason: "The body must be a JSON object" });
  const match = body.match_lead;
  if (body.retain !== undefined && !(typeof match?.phone === "string" || typeof match?.email === "string"))
    return respond(422, { outcome: "error", reason: "match_lead with an email or phone is required to retain" });
  return null;
}

interface Operations {
  match_lead?: { phone?: unknown; email?: unknown };
  retain?: { reference?: unknown; vendor?: unknown };
  insights?: { properties?: unknown };
}

/** A 200's body: each operation asked for, answered; the outcome follows the match as the API documents. */
function operations(body: Operations, behaviour: CertificateBehaviour, now: Date): Record<string, unknown> {
  const match = body.match_lead ?? {};
  const sentPhone = typeof match.phone === "string";
  const sentEmail = typeof match.email === "string";
  const phoneMatch = sentPhone ? behaviour.scenario !== "no_phone_match" && behaviour.scenario !== "no_match" : null;
  const emailMatch = sentEmail ? behaviour.scenario !== "no_match" : null;
  // match_lead succeeds when any value sent matched (v4 reference, MatchLeadResult).
  const success = phoneMatch === true || emailMatch === true;
  const expiresAt = new Date(now.getTime() + RETAINED_FOR_MS).toISOString();
  const answer: Record<string, unknown> = {
    outcome: success ? "success" : "failure",
    reason: success ? null : "Lead match unsuccessful",
    match_lead: { ...match, result: { email_match: emailMatch, phone_match: phoneMatch, success } },
  };
  if (body.retain) answer.retain = { ...body.retain, results: { expires_at: expiresAt, masked_cert_url: null, previously_retained: false } };
  if (body.insights) answer.insights = { properties: insights(body.insights.properties, behaviour, expiresAt, now) };
  return answer;
}

function insights(asked: unknown, behaviour: CertificateBehaviour, expiresAt: string, now: Date): Record<string, unknown> {
  const ageSeconds = behaviour.ageSeconds ?? 42;
  const domain = behaviour.domain ?? "quotes.example.com";
  const known: Record<string, unknown> = {
    age_seconds: ageSeconds,
    created_at: new Date(now.getTime() - ageSeconds * 1000).toISOString(),
    domain,
    expires_at: expiresAt,
    page_url: behaviour.pageUrl ?? `https://${domain}/quote`,
  };
  // Only what was asked for, as the real API bills and answers; a property the mock does not know is null.
  const names = Array.isArray(asked) ? asked.filter((name): name is string => typeof name === "string") : [];
  return Object.fromEntries(names.map((name) => [name, Object.hasOwn(known, name) ? known[name] : null]));
}

/** HTTP Basic with any user and a non-empty password: the mock does not know the operator's key. */
function hasApiKey(authorization: string | null): boolean {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)$/.exec(authorization ?? "");
  if (!match) return false;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  return colon >= 0 && decoded.length > colon + 1;
}

function respond(status: number, body: unknown, delayMs = 0): Answer {
  return { action: "respond", status, delayMs, body: JSON.stringify(body) };
}
