// Per-vendor token bucket (CONTRACT §3): `burst` requests at once, refilled at `perSecond`.
// In memory, per process: the limit protects this process, and one process serves a deployment.

export type RateDecision = { ok: true } | { ok: false; retryAfterSeconds: number };

export interface RateLimiter {
  take(key: string): RateDecision;
}

const ALLOWED: RateDecision = { ok: true };

export function createRateLimiter(limits: { perSecond: number; burst: number }, clock: () => number = Date.now): RateLimiter {
  const { perSecond, burst } = limits;
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    take(key) {
      if (perSecond === 0) return ALLOWED;
      const now = clock();
      const bucket = buckets.get(key) ?? { tokens: burst, at: now };
      bucket.tokens = Math.min(burst, bucket.tokens + ((now - bucket.at) * perSecond) / 1000);
      bucket.at = now;
      buckets.set(key, bucket);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return ALLOWED;
      }
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond)) };
    },
  };
}
