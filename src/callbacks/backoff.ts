// Callback retry schedule (docs/contract.md §8): exponential backoff with jitter, scalable for tests, and
// the receiver's Retry-After honoured on 429/503. Pure: time and randomness come from the caller.

/** Waits after failed attempts 1..7: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. Eight attempts in all. */
export const DEFAULT_SCHEDULE_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];

/** A receiver cannot park a callback for longer than this with Retry-After. */
export const MAX_RETRY_AFTER_MS = 86_400_000;

export interface BackoffOptions {
  /** Wait after each failed attempt; its length is the number of retries. */
  scheduleMs?: readonly number[];
  /** Multiplies every schedule delay: 0.001 runs the whole schedule in milliseconds. */
  scale?: number;
  /** Spread around each delay: 0.2 gives a delay in [0.8×, 1.2×). */
  jitter?: number;
  /** Uniform in [0, 1), like Math.random; injected so tests are deterministic. */
  random?: () => number;
  /**
   * The wait the receiver asked for (parseRetryAfter of a 429/503 answer), or null. It is the
   * receiver's figure in real time, so `scale` does not shrink it.
   */
  retryAfterMs?: number | null;
  /** Cap on retryAfterMs. */
  maxRetryAfterMs?: number;
}

/**
 * Milliseconds to wait before the next attempt after attempt `failedAttempt` (1-based; attempt 1
 * goes out at once) failed, or null when that was the last attempt and the callback is dead.
 * The wait is the scaled, jittered schedule delay, or the capped Retry-After when that is longer.
 */
export function nextAttemptDelay(failedAttempt: number, options: BackoffOptions = {}): number | null {
  const { scheduleMs = DEFAULT_SCHEDULE_MS, scale = 1, jitter = 0.2, random = Math.random } = options;
  const { retryAfterMs = null, maxRetryAfterMs = MAX_RETRY_AFTER_MS } = options;
  if (!Number.isInteger(failedAttempt) || failedAttempt < 1) throw new RangeError(`failedAttempt must be an integer ≥ 1, got ${failedAttempt}`);
  if (!(scale > 0) || !Number.isFinite(scale)) throw new RangeError(`scale must be a positive number, got ${scale}`);
  if (!(jitter >= 0 && jitter < 1)) throw new RangeError(`jitter must be in [0, 1), got ${jitter}`);
  const base = scheduleMs[failedAttempt - 1];
  if (base === undefined) return null;
  const jittered = Math.round(base * scale * (1 + jitter * (2 * random() - 1)));
  const askedFor = retryAfterMs === null ? 0 : Math.min(Math.max(0, retryAfterMs), maxRetryAfterMs);
  return Math.max(jittered, askedFor);
}

/** The total number of attempts a schedule allows: the first one plus one per delay. */
export function maxAttempts(scheduleMs: readonly number[] = DEFAULT_SCHEDULE_MS): number {
  return scheduleMs.length + 1;
}

// RFC 9110 §5.6.7: IMF-fixdate, then the obsolete RFC 850 and asctime forms recipients must accept.
const IMF_FIXDATE = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/;
const RFC_850_DATE = /^[A-Z][a-z]+, \d{2}-[A-Z][a-z]{2}-\d{2} \d{2}:\d{2}:\d{2} GMT$/;
const ASCTIME_DATE = /^[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2} \d{4}$/;

/**
 * Reads a Retry-After header: delay-seconds ("120") or an HTTP-date, relative to `now` (epoch ms).
 * Returns the wait in milliseconds (0 for a date in the past), or null when absent or malformed.
 */
export function parseRetryAfter(headerValue: string | null | undefined, now: number): number | null {
  const value = headerValue?.trim();
  if (!value) return null;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  let date = Number.NaN;
  if (IMF_FIXDATE.test(value) || RFC_850_DATE.test(value)) date = Date.parse(value);
  // asctime carries no zone; Date.parse would read it as local time, but HTTP dates are GMT.
  else if (ASCTIME_DATE.test(value)) date = Date.parse(`${value} GMT`);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
