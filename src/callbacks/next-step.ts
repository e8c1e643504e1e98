// What an attempt's result means for the callback (docs/contract.md §8): 2xx delivered; 410 Gone stops
// at once; anything else is retried on the schedule (Retry-After honoured) until it runs out.
import { nextAttemptDelay, type BackoffOptions } from "./backoff.ts";
import type { NextStep } from "../store/callbacks/index.ts";

const isDelivered = (statusCode: number | null) => statusCode !== null && statusCode >= 200 && statusCode < 300;

/**
 * Whether the receiver gave the answer that settles the callback (a 2xx, or 410 Gone): the
 * endpoint works, whatever its circuit counted before (endpoints.ts).
 */
export const answeredForGood = (statusCode: number | null) => isDelivered(statusCode) || statusCode === 410;

export function nextStep(
  result: { statusCode: number | null; retryAfterMs: number | null },
  attemptNo: number,
  backoff: BackoffOptions,
  now: number,
): NextStep {
  const { statusCode } = result;
  if (isDelivered(statusCode)) return { kind: "delivered" };
  if (statusCode === 410) return { kind: "dead" };
  const delay = nextAttemptDelay(attemptNo, { ...backoff, retryAfterMs: result.retryAfterMs });
  return delay === null ? { kind: "dead" } : { kind: "retry", at: now + delay };
}
