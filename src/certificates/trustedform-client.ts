// Asks TrustedForm about one certificate and turns the answer into evidence. fetch is injected so
// tests pass a fake; the whole exchange, body included, is bounded by one timeout. Nothing here
// logs: the caller decides what to record, and the evidence never holds the key.
import { evidenceFromAnswer, type CertificateEvidence, type ProviderAnswer } from "./evidence.ts";
import { basicAuthorization, trustedFormRequest, TRUSTEDFORM_DEFAULT_BASE_URL, type TrustedFormLead } from "./trustedform-request.ts";

export type Fetch = (input: URL, init: RequestInit) => Promise<Response>;

export interface TrustedFormClientOptions {
  /** The operator's TrustedForm API key. */
  apiKey: string;
  /** Where certificate ids are POSTed; TRUSTEDFORM_DEFAULT_BASE_URL in production, the mock receiver's /trustedform in tests. */
  baseUrl?: string | URL;
  /** How long one request may take, answer body included. */
  timeoutMs: number;
  fetch?: Fetch;
}

/** A TrustedForm answer larger than this is not one (theirs are a few KB): it is cut and counted unreadable. */
export const MAX_ANSWER_BYTES = 256 * 1024;

export type TrustedFormVerifier = (certificateId: string, lead: TrustedFormLead, signal?: AbortSignal) => Promise<CertificateEvidence>;

/** A verifier bound to the operator's settings. It never throws: every failure is evidence ("unreachable"). */
export function trustedFormVerifier(options: TrustedFormClientOptions): TrustedFormVerifier {
  return async (certificateId, lead, signal) => evidenceFromAnswer(await askTrustedForm(certificateId, lead, options, signal));
}

/** One request and its answer, as received. `signal` lets the caller give up early (shutdown). */
export async function askTrustedForm(
  certificateId: string,
  lead: TrustedFormLead,
  options: TrustedFormClientOptions,
  signal?: AbortSignal,
): Promise<ProviderAnswer> {
  const timeout = AbortSignal.timeout(options.timeoutMs);
  const abort = signal ? AbortSignal.any([timeout, signal]) : timeout;
  const request = trustedFormRequest(certificateId, lead, { baseUrl: options.baseUrl ?? TRUSTEDFORM_DEFAULT_BASE_URL, apiKey: options.apiKey });
  const send = options.fetch ?? fetch;
  try {
    // A redirect is not followed: it would carry the key's header somewhere we did not choose.
    const response = await send(request.url, { ...request.init, redirect: "manual", signal: abort });
    const { text, truncated } = await readBounded(response, MAX_ANSWER_BYTES);
    return { kind: "http", status: response.status, body: text, truncated };
  } catch (error) {
    if (timeout.aborted) return { kind: "timeout", timeoutMs: options.timeoutMs };
    return { kind: "network", message: withoutKey(errorMessage(error), options.apiKey) };
  }
}

/** The body as text, up to `limit` bytes; the rest is not read. */
async function readBounded(response: Response, limit: number): Promise<{ text: string; truncated: boolean }> {
  if (!response.body) return { text: "", truncated: false };
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
    if (size > limit) {
      truncated = true;
      await reader.cancel();
      break;
    }
  }
  const bytes = Buffer.concat(chunks).subarray(0, limit);
  return { text: new TextDecoder().decode(bytes), truncated };
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Belt and braces: no error text we keep may quote the key or its header, whatever a fetch put in it. */
function withoutKey(message: string, apiKey: string): string {
  if (apiKey === "") return message;
  const header = basicAuthorization(apiKey);
  return message.split(header).join("[redacted]").split(header.slice("Basic ".length)).join("[redacted]").split(apiKey).join("[redacted]");
}
