// What an attempt's result means for the callback (CONTRACT §8): 2xx delivered; 410 Gone stops
// at once; anything else is retried on the schedule (Retry-After honoured) until it runs out.
import { nextAttemptDelay, type BackoffOptions } from "./backoff.ts";
import type { NextStep } from "../store/callbacks/index.ts";

export function nextStep(
  result: { statusCode: number | null; retryAfterMs: number | null },
  attemptNo: number,
  backoff: BackoffOptions,
  now: number,
): NextStep {
  const { statusCode } = result;
  if (statusCode !== null && statusCode >= 200 && statusCode < 300) return { kind: "delivered" };
  if (statusCode === 410) return { kind: "dead" };
  const delay = nextAttemptDelay(attemptNo, { ...backoff, retryAfterMs: result.retryAfterMs });
  return delay === null ? { kind: "dead" } : { kind: "retry", at: now + delay };
}
