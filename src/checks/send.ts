// One exchange with a check service: the address checked as a callback's is (address.ts: refused
// when private unless allowed, then connected to the very address checked), the signed request
// POSTed by the checks' HTTP client (http-client.ts) until the caller's cancel ends it, and the
// answer read (at most MAX_ANSWER_BYTES) and judged. Never throws: whatever goes wrong is an error
// answer, with a short description for logs.
import type { Lookup } from "../callbacks/ssrf.ts";
import { checkFailed } from "../contract/texts.ts";
import { type CheckAddresses, resolveCheckTarget } from "./address.ts";
import type { Cancel } from "./cancel.ts";
import type { HttpClient } from "./http-client.ts";
import type { SignedRequest } from "./request.ts";

/** What a check answered: pass or fail with its reason, or an error (no usable answer). */
export type CheckAnswer = { outcome: "pass" | "fail"; reason: string } | { outcome: "error"; error: string };

export interface SendDeps {
  client: Pick<HttpClient, "post">;
  /** Development and tests: private and loopback addresses allowed (the callbacks' setting). */
  allowPrivate: boolean;
  lookup?: Lookup;
  /** The checked targets kept per URL (the runner's); without it each request resolves its URL anew. */
  addresses?: CheckAddresses;
}

/** An answer is a small JSON object; anything larger is not one. */
export const MAX_ANSWER_BYTES = 16 * 1024;
/** A reason is shown in a 422 and in the refusal log: a long one is cut here. */
export const MAX_REASON_CHARS = 500;

/** The answer's reason, trimmed and cut to MAX_REASON_CHARS; a fail without one gets `failFallback`. */
function reasonOf(value: unknown, failFallback: string | null): string | null {
  const text = typeof value === "string" ? value.trim().slice(0, MAX_REASON_CHARS) : "";
  return text !== "" ? text : failFallback;
}

/**
 * Judges the body of a 2xx answer: `{ "outcome": "pass" | "fail", "reason": <text> }`. A reason
 * that is not text is a wrongly shaped answer; a missing one is allowed (a fail then reads
 * "Refused by check: <name>").
 */
export function parseAnswer(text: string, checkName: string): CheckAnswer {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { outcome: "error", error: "answer is not JSON" };
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { outcome: "error", error: "answer is not a JSON object" };
  const { outcome, reason } = value as Record<string, unknown>;
  if (outcome !== "pass" && outcome !== "fail") return { outcome: "error", error: 'answer\'s outcome is not "pass" or "fail"' };
  if (reason !== undefined && reason !== null && typeof reason !== "string") return { outcome: "error", error: "answer's reason is not text" };
  return { outcome, reason: reasonOf(reason, outcome === "fail" ? checkFailed(checkName) : null) ?? "" };
}

/**
 * POSTs `request` to `url` and judges the answer; `cancel` ends it (the caller's timeout: then the
 * error says so). Redirects are not followed: a 3xx is a non-2xx answer.
 */
export async function sendCheck(url: string, checkName: string, request: SignedRequest, deps: SendDeps, cancel: Cancel): Promise<CheckAnswer> {
  try {
    const target = await (deps.addresses ? deps.addresses.target(url, cancel) : resolveCheckTarget(url, deps, cancel.signal()));
    if (!target.ok) return { outcome: "error", error: target.error };
    const answer = await deps.client.post(target.target, request.headers, request.body, cancel, MAX_ANSWER_BYTES);
    if (answer.status < 200 || answer.status > 299) return { outcome: "error", error: `HTTP ${answer.status}` };
    if (answer.body === null) return { outcome: "error", error: `answer larger than ${MAX_ANSWER_BYTES} bytes` };
    return parseAnswer(answer.body, checkName);
  } catch (error) {
    if (cancel.isCancelled) return { outcome: "error", error: "timed out" };
    return { outcome: "error", error: describe(error) };
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error).slice(0, 200);
  const code = (error as { code?: string }).code;
  return (code ? `${code}: ${error.message}` : error.message).slice(0, 200);
}
