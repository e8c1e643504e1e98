// The mock receiver's TrustedForm certificate endpoint: POST /trustedform/<certificate id> answers like
// TrustedForm's certificate API v4, so a service with its TrustedForm base URL set to
// http://127.0.0.1:<port>/trustedform verifies certificates against it (docs/certificates.md "The mock").
//
// How a certificate answers, first match wins: a behaviour set for its id (PUT /_mock/trustedform
// {"token": …}); else its id's prefix naming a scenario ("expired-…", "no_phone_match-…"), so a
// fixture's certificate_url says what it will get; else the default behaviour (PUT without a token),
// which starts as "verified". Requests are kept (bounded) for GET /_mock/trustedform, the key redacted.
import { BehaviourError, type Answer } from "./behaviour.ts";
import { answerCertificate, CERTIFICATE_SCENARIOS, type CertificateAsk, type CertificateBehaviour, type CertificateScenario } from "./trustedform-answer.ts";

export const TRUSTEDFORM_PREFIX = "/trustedform";

export interface CertificateRequest {
  token: string;
  method: string;
  receivedAt: string;
  apiVersion: string | null;
  /** Whether an HTTP Basic key came; never the key itself. */
  authorized: boolean;
  body: unknown;
  scenario: CertificateScenario;
  /** The status answered, null when the mock hung. */
  status: number | null;
}

export interface CertificateTable {
  /** `token` undefined sets the default behaviour. */
  set(token: string | undefined, behaviour: CertificateBehaviour): void;
  /** Forgets every behaviour and every request; the default is "verified" again. */
  reset(): void;
  describe(): { default: CertificateBehaviour; tokens: Record<string, CertificateBehaviour> };
  requests(): CertificateRequest[];
  /** Decides and records the answer for a request to TRUSTEDFORM_PREFIX/<token>. */
  answer(request: Request, token: string): Promise<Answer>;
}

const MAX_REQUESTS = 10_000;
const MAX_TOKENS = 100_000;
const MAX_DELAY_MS = 3_600_000;
const FIELDS = new Set(["token", "scenario", "delayMs", "failFirst", "ageSeconds", "pageUrl", "domain"]);

export function createCertificateTable(): CertificateTable {
  let fallback: CertificateBehaviour = { scenario: "verified" };
  const byToken = new Map<string, CertificateBehaviour>();
  const seen = new Map<string, number>();
  let requests: CertificateRequest[] = [];
  const behaviourOf = (token: string): CertificateBehaviour => byToken.get(token) ?? scenarioPrefix(token) ?? fallback;
  return {
    set(token, behaviour) {
      if (token === undefined) fallback = behaviour;
      else {
        if (!byToken.has(token) && byToken.size >= MAX_TOKENS)
          throw new BehaviourError(`at most ${MAX_TOKENS} certificates can be set; DELETE /_mock/trustedform first`);
        byToken.set(token, behaviour);
      }
      // failFirst counts from the moment a behaviour is set.
      if (token === undefined) seen.clear();
      else seen.delete(token);
    },
    reset() {
      fallback = { scenario: "verified" };
      byToken.clear();
      seen.clear();
      requests = [];
    },
    describe: () => ({ default: fallback, tokens: Object.fromEntries(byToken) }),
    requests: () => [...requests],
    async answer(request, token) {
      const ask = await readAsk(request, token);
      const count = seen.get(token) ?? 0;
      seen.set(token, count + 1);
      const set = behaviourOf(token);
      const behaviour: CertificateBehaviour = set.failFirst !== undefined && count >= set.failFirst ? { scenario: "verified" } : set;
      const answer = answerCertificate(ask, behaviour);
      if (requests.length >= MAX_REQUESTS) requests.shift();
      requests.push({
        token,
        method: ask.method,
        receivedAt: new Date().toISOString(),
        apiVersion: ask.apiVersion,
        authorized: ask.authorization !== null,
        body: ask.body,
        scenario: behaviour.scenario,
        status: answer.action === "respond" ? answer.status : null,
      });
      return answer;
    },
  };
}

/** Checks a behaviour as sent to PUT /_mock/trustedform (or setCertificate); throws BehaviourError. */
export function parseCertificateBehaviour(input: unknown): { token?: string; behaviour: CertificateBehaviour } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new BehaviourError("a certificate behaviour must be a JSON object");
  const fields = input as Record<string, unknown>;
  const unknown = Object.keys(fields).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) throw new BehaviourError(`unknown field(s): ${unknown.join(", ")}`);
  if (!isScenario(fields.scenario)) throw new BehaviourError(`scenario must be one of ${CERTIFICATE_SCENARIOS.join(", ")}`);
  const behaviour: CertificateBehaviour = { scenario: fields.scenario };
  if (fields.delayMs !== undefined) behaviour.delayMs = integerIn(fields.delayMs, "delayMs", 0, MAX_DELAY_MS);
  if (fields.failFirst !== undefined) behaviour.failFirst = integerIn(fields.failFirst, "failFirst", 0, 1_000_000);
  if (fields.ageSeconds !== undefined) behaviour.ageSeconds = integerIn(fields.ageSeconds, "ageSeconds", 0, 10 * 365 * 86_400);
  if (fields.pageUrl !== undefined) behaviour.pageUrl = shortText(fields.pageUrl, "pageUrl");
  if (fields.domain !== undefined) behaviour.domain = shortText(fields.domain, "domain");
  if (fields.token === undefined || fields.token === null) return { behaviour };
  if (typeof fields.token !== "string" || !/^[-_.A-Za-z0-9]{1,255}$/.test(fields.token))
    throw new BehaviourError("token must be a certificate id: 1 to 255 letters, digits, '-', '_' or '.'");
  return { token: fields.token, behaviour };
}

/** The certificate id of a path under TRUSTEDFORM_PREFIX ("/trustedform/<id>"), "" for any other path there, null outside it. */
export function certificatePath(pathname: string): string | null {
  if (pathname !== TRUSTEDFORM_PREFIX && !pathname.startsWith(`${TRUSTEDFORM_PREFIX}/`)) return null;
  const rest = pathname.slice(TRUSTEDFORM_PREFIX.length + 1);
  return /^[-_.A-Za-z0-9]{1,255}$/.test(rest) ? rest : "";
}

/** The id's leading scenario name, as in "expired-7c1f…" or "no_phone_match-…". */
function scenarioPrefix(token: string): CertificateBehaviour | undefined {
  const dash = token.indexOf("-");
  const name = dash > 0 ? token.slice(0, dash) : "";
  return isScenario(name) ? { scenario: name } : undefined;
}

async function readAsk(request: Request, token: string): Promise<CertificateAsk> {
  const text = await request.text();
  let body: unknown;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { token, method: request.method, apiVersion: request.headers.get("api-version"), authorization: request.headers.get("authorization"), body };
}

function isScenario(value: unknown): value is CertificateScenario {
  return typeof value === "string" && (CERTIFICATE_SCENARIOS as readonly string[]).includes(value);
}

function integerIn(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw new BehaviourError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

function shortText(value: unknown, name: string): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) throw new BehaviourError(`${name} must be a string of 1 to 2048 characters`);
  return value;
}
