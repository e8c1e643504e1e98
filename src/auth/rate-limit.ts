// Token buckets: `burst` tokens at once, refilled at `perSecond`. One per vendor for the request
// rate limit (docs/contract.md §3); one per client address and per vendor name for failed credentials
// (docs/contract.md §9, see authenticator.ts); one per vendor for the portal's test callbacks
// (portal/test-callback-limit.ts). In memory, per process: the limits protect this process.
// Several instances on PostgreSQL each keep their own (a shared bucket would cost a database round
// trip per request); docs/operations.md says how to set the limit for N instances. A bucket full again
// is forgotten (a key without one has a full bucket), swept by a take once per time a bucket takes
// to refill: the map holds the keys used within the last two such times, however many came. (A
// sweep per take, in order of last use, cost 57 ns a take more; this one is within the noise.)

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimiter {
  take(key: string): RateDecision;
  /** Seconds until `key` could take a token (0: it can now). Takes nothing. */
  waitSeconds(key: string): number;
  /** Whether `key` took tokens that are not refilled yet (it was used lately). Takes nothing. */
  isDrawn(key: string): boolean;
  /** Buckets held (memory): keys that took a token within the last two refill times, at most maxKeys. */
  size(): number;
}

export interface RateLimits {
  perSecond: number;
  burst: number;
  /**
   * Buckets kept at most; past it the oldest is forgotten (which gives its key a full bucket).
   * For keys a stranger chooses, such as client addresses; vendors are few.
   */
  maxKeys?: number;
}

const ALLOWED: RateDecision = { ok: true };

/**
 * Tokens as compared, to a millionth: a fractional rate leaves float dust (6 s at 1/6 a second,
 * added a second at a time, is 0.9999999999 of a token), which refused a request made after its
 * Retry-After. Only comparisons round: the count kept is exact, so no rounding adds up.
 */
const dustless = (tokens: number) => Math.round(tokens * 1e6) / 1e6;

export function createRateLimiter(limits: RateLimits, clock: () => number = Date.now): RateLimiter {
  const { perSecond, burst, maxKeys = Infinity } = limits;
  const buckets = new Map<string, { tokens: number; at: number }>();

  /** A bucket's tokens at `now`. */
  const tokensAt = (bucket: { tokens: number; at: number }, now: number) => Math.min(burst, bucket.tokens + ((now - bucket.at) * perSecond) / 1000);
  /** The key's bucket refilled to now; a key without one has a full bucket. */
  function refilled(key: string, now: number) {
    const bucket = buckets.get(key);
    if (!bucket) return undefined;
    bucket.tokens = tokensAt(bucket, now);
    bucket.at = now;
    return bucket;
  }
  const refillMs = (burst / perSecond) * 1000;
  let sweepAt = clock() + refillMs;
  /** Once a refill time: forgets the buckets full again. */
  function forgetFull(now: number) {
    if (now < sweepAt) return;
    sweepAt = now + refillMs;
    for (const [key, bucket] of buckets) if (dustless(tokensAt(bucket, now)) >= burst) buckets.delete(key);
  }
  // Whole milliseconds first: a fractional rate (1/3 per second) leaves float dust above 1 s.
  const secondsUntilOneToken = (tokens: number) => Math.max(1, Math.ceil(Math.round(((1 - tokens) / perSecond) * 1000) / 1000));

  return {
    take(key) {
      if (perSecond === 0) return ALLOWED;
      const now = clock();
      forgetFull(now);
      let bucket = refilled(key, now);
      if (!bucket) {
        bucket = { tokens: burst, at: now };
        buckets.set(key, bucket);
        if (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value!);
      }
      if (dustless(bucket.tokens) >= 1) {
        bucket.tokens -= 1;
        return ALLOWED;
      }
      return { ok: false, retryAfterSeconds: secondsUntilOneToken(dustless(bucket.tokens)) };
    },
    waitSeconds(key) {
      const tokens = perSecond === 0 ? burst : dustless(refilled(key, clock())?.tokens ?? burst);
      return tokens >= 1 ? 0 : secondsUntilOneToken(tokens);
    },
    isDrawn(key) {
      return perSecond !== 0 && dustless(refilled(key, clock())?.tokens ?? burst) < burst;
    },
    size: () => buckets.size,
  };
}
