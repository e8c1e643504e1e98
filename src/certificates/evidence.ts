// From TrustedForm's answer to the evidence stored with a lead (docs/contract.md §11), and from the
// evidence to the certificate.* facts final rules read. Pure: no clock, no I/O, so every documented
// answer is a table row in test/certificates/evidence.test.ts. docs/certificates.md "Answers" says
// what each answer becomes and why.
import type { CERTIFICATE_FACTS } from "../policy/fields.ts";

/** What came back from one request, as the client saw it. */
export type ProviderAnswer =
  | { kind: "http"; status: number; body: string /** The body was cut at the client's read limit. */; truncated: boolean }
  | { kind: "timeout"; timeoutMs: number }
  | { kind: "network"; message: string };

export type CertificateOutcome = "verified" | "not_verified" | "unreachable";

/**
 * Why an unreachable answer was one: "account" (401/402/403: the operator's key, plan or funds, not
 * the lead's fault), "busy" (408/429), "server" (5xx), "timeout", "network", "unreadable" (a 2xx we
 * cannot read, or TrustedForm's own outcome "error"). Every one is retried until the decision is due.
 */
export type UnreachableProblem = "account" | "busy" | "server" | "timeout" | "network" | "unreadable";

export interface CertificateEvidence {
  provider: "trustedform";
  outcome: CertificateOutcome;
  /** The provider's reason (or ours when it gave none); null when verified. Safe to put in a callback. */
  reason: string | null;
  problem: UnreachableProblem | null;
  /** The HTTP status, null when no answer came. */
  http_status: number | null;
  phone_match: boolean | null;
  email_match: boolean | null;
  age_seconds: number | null;
  page_url: string | null;
  domain: string | null;
  /** When TrustedForm stops serving the certificate to this account (ISO 8601, as the provider wrote it). */
  expires_at: string | null;
  /** The answer's body as received, cut at MAX_RAW_CHARS. */
  raw: string | null;
  raw_truncated: boolean;
}

export type CertificateFacts = Record<(typeof CERTIFICATE_FACTS)[number], string | number | boolean | null>;

/** Bounds what one lead's evidence costs in the database; TrustedForm's answers are a few KB. */
export const MAX_RAW_CHARS = 16_384;
const MAX_REASON_CHARS = 300;
const MAX_TEXT_CHARS = 2_048;

/** The evidence but for the raw answer, which evidenceFromAnswer adds. */
type Judgement = Omit<CertificateEvidence, "raw" | "raw_truncated">;

const EMPTY = { phone_match: null, email_match: null, age_seconds: null, page_url: null, domain: null, expires_at: null } as const;

/** The evidence one answer amounts to. */
export function evidenceFromAnswer(answer: ProviderAnswer): CertificateEvidence {
  const none = { raw: null, raw_truncated: false };
  if (answer.kind === "timeout") return { ...unreachable("timeout", null, `TrustedForm did not answer within ${answer.timeoutMs} ms`), ...none };
  if (answer.kind === "network")
    return { ...unreachable("network", null, `TrustedForm could not be reached: ${clean(answer.message) ?? "network error"}`), ...none };
  const { status } = answer;
  const raw = { raw: answer.body.slice(0, MAX_RAW_CHARS), raw_truncated: answer.truncated || answer.body.length > MAX_RAW_CHARS };
  const body = answer.truncated ? undefined : parseObject(answer.body);
  const said = clean(body?.reason);
  if (status >= 200 && status < 300) return { ...fromSuccessStatus(status, body, said), ...raw };
  const base = { provider: "trustedform", http_status: status, ...EMPTY, ...raw } as const;
  if (status === 401 || status === 402 || status === 403)
    return { ...base, outcome: "unreachable", problem: "account", reason: said ?? ACCOUNT_REASONS[status] ?? `HTTP ${status}` };
  if (status === 408 || status === 429) return { ...base, outcome: "unreachable", problem: "busy", reason: said ?? `TrustedForm is busy (HTTP ${status})` };
  if (status >= 500 || status < 400) return { ...base, outcome: "unreachable", problem: "server", reason: said ?? `TrustedForm answered HTTP ${status}` };
  // 404 and 410 (expired or unknown), and the rest of 4xx (a malformed or sandboxed certificate): the
  // provider has answered about this certificate, and asking again would get the same answer.
  return {
    ...base,
    outcome: "not_verified",
    problem: null,
    reason: said ?? NOT_FOUND_REASONS[status] ?? `TrustedForm refused the certificate (HTTP ${status})`,
  };
}

/** The certificate.* facts (docs/contract.md §11) of a lead's evidence. */
export function certificateFacts(evidence: CertificateEvidence): CertificateFacts {
  return {
    verified: evidence.outcome === "verified",
    phone_match: evidence.phone_match,
    email_match: evidence.email_match,
    age_seconds: evidence.age_seconds,
    domain: evidence.domain,
    page_url: evidence.page_url,
  };
}

const ACCOUNT_REASONS: Record<number, string> = {
  401: "TrustedForm refused the API key (HTTP 401)",
  402: "the TrustedForm account is inactive or out of funds (HTTP 402)",
  403: "TrustedForm refused the operation for this account (HTTP 403)",
};
const NOT_FOUND_REASONS: Record<number, string> = {
  404: "certificate has expired or could not be found",
  410: "certificate has expired",
};

/**
 * A 2xx: TrustedForm's `outcome` decides ("best practice is to base your purchase decision on this
 * property"), with one stricter rule of ours: the phone must not be a mismatch. match_lead succeeds
 * when any value sent matched, so an email match would pass a certificate recorded for another phone;
 * but the consent a buyer needs is consent to call the lead's number (docs/certificates.md "Answers").
 */
function fromSuccessStatus(status: number, body: Record<string, unknown> | undefined, said: string | null): Judgement {
  if (!body) return unreachable("unreadable", status, "TrustedForm's answer is not a JSON object");
  const details = detailsOf(body);
  const base = { provider: "trustedform", http_status: status, ...details } as const;
  const matched = objectAt(body, "match_lead", "result")?.success;
  if (body.outcome === "success" && matched !== false && details.phone_match !== false) return { ...base, outcome: "verified", problem: null, reason: null };
  if (body.outcome === "success" || body.outcome === "failure")
    return { ...base, outcome: "not_verified", problem: null, reason: said ?? matchReason(details) };
  // "error": "the certificate was not claimed and the request should be reviewed and potentially retried".
  if (body.outcome === "error") return { ...base, outcome: "unreachable", problem: "unreadable", reason: said ?? "TrustedForm reported an error" };
  return { ...base, outcome: "unreachable", problem: "unreadable", reason: "TrustedForm's answer has no outcome this service knows" };
}

function matchReason(details: typeof EMPTY | ReturnType<typeof detailsOf>): string {
  if (details.phone_match === false && details.email_match === false) return "the lead's phone and email do not match the certificate";
  if (details.phone_match === false) return "the lead's phone does not match the certificate";
  if (details.email_match === false && details.phone_match !== true) return "the lead's email does not match the certificate";
  return "TrustedForm did not verify the certificate";
}

/** The evidence's fields from a 200's body; each is null when absent or not of its documented type. */
function detailsOf(body: Record<string, unknown>) {
  const result = objectAt(body, "match_lead", "result");
  const properties = objectAt(body, "insights", "properties");
  // The v4 reference's example says retain.results; LeadConduit's code reads retain.result: take either.
  const retained = objectAt(body, "retain", "results") ?? objectAt(body, "retain", "result");
  const age = properties?.age_seconds;
  return {
    phone_match: typeof result?.phone_match === "boolean" ? result.phone_match : null,
    email_match: typeof result?.email_match === "boolean" ? result.email_match : null,
    age_seconds: typeof age === "number" && Number.isFinite(age) && age >= 0 ? age : null,
    page_url: text(properties?.page_url),
    domain: text(properties?.domain),
    expires_at: timestamp(retained?.expires_at) ?? timestamp(properties?.expires_at),
  };
}

function unreachable(problem: UnreachableProblem, status: number | null, reason: string): Judgement {
  return { provider: "trustedform", outcome: "unreachable", problem, reason, http_status: status, ...EMPTY };
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function objectAt(value: Record<string, unknown>, ...keys: string[]): Record<string, unknown> | undefined {
  let current: unknown = value;
  for (const key of keys) {
    if (current === null || typeof current !== "object" || Array.isArray(current) || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current !== null && typeof current === "object" && !Array.isArray(current) ? (current as Record<string, unknown>) : undefined;
}

function text(value: unknown): string | null {
  return typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, MAX_TEXT_CHARS) : null;
}

function timestamp(value: unknown): string | null {
  const written = text(value);
  return written !== null && Number.isFinite(Date.parse(written)) ? written : null;
}

/**
 * A reason fit for a callback: one line, no control characters, bounded. The v4 reference's own
 * example answers `"reason": "null"`, so that text (and blank) counts as no reason.
 */
function clean(value: unknown): string | null {
  if (typeof value !== "string") return null;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping them is the point.
  const line = value.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  if (line === "" || line.toLowerCase() === "null") return null;
  return line.length > MAX_REASON_CHARS ? `${line.slice(0, MAX_REASON_CHARS - 1)}…` : line;
}
