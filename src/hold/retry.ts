// When a provider that could not answer about a held lead is asked again (docs/contract.md §11:
// TrustedForm unreachable, a final-stage check's error, "retried until the decision is due"): a
// backoff doubling from RETRY_FIRST_MS to RETRY_MAX_MS, and one last try fitted in before the
// decision when the backoff would pass it. Pure.

export const RETRY_FIRST_MS = 500;
export const RETRY_MAX_MS = 30_000;

/**
 * The next try after attempt number `attempts` (1 = the first) failed at `now`, for a lead decided at
 * `decideAfter`, a request taking up to `timeoutMs`. A try that would start too late for its answer
 * to count is moved to the last moment one can still count, unless that moment has passed.
 */
export function nextTryAt(now: number, attempts: number, decideAfter: number, timeoutMs: number): number {
  const backoff = Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** Math.max(0, attempts - 1));
  const lastUseful = decideAfter - timeoutMs;
  const next = now + backoff;
  return next > lastUseful && lastUseful > now ? lastUseful : next;
}
