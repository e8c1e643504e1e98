import { describe, expect, test } from "bun:test";
import { DEFAULT_SCHEDULE_MS, MAX_RETRY_AFTER_MS, maxAttempts, nextAttemptDelay, parseRetryAfter } from "../../src/callbacks/backoff.ts";

/** mulberry32: a small seeded generator, so a failing draw can be replayed. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const middle = () => 0.5; // no jitter: 1 + 0.2 × (2 × 0.5 − 1) = 1

describe("nextAttemptDelay", () => {
  test("follows the default schedule, then the callback is dead", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => nextAttemptDelay(n, { random: middle }));
    expect(delays).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, null]);
    expect(maxAttempts()).toBe(8);
    expect(nextAttemptDelay(100, { random: middle })).toBeNull();
  });

  test("jitter stays within ±20% over many seeded draws, and uses the whole range", () => {
    const random = seededRandom(42);
    for (const [index, base] of DEFAULT_SCHEDULE_MS.entries()) {
      let low = Infinity;
      let high = -Infinity;
      for (let draw = 0; draw < 2_000; draw++) {
        const delay = nextAttemptDelay(index + 1, { random });
        if (delay === null) throw new Error("unexpected dead");
        low = Math.min(low, delay);
        high = Math.max(high, delay);
      }
      expect(low).toBeGreaterThanOrEqual(Math.round(base * 0.8));
      expect(high).toBeLessThanOrEqual(Math.round(base * 1.2));
      // 2,000 uniform draws come within 1% of either end.
      expect(low).toBeLessThan(base * 0.81);
      expect(high).toBeGreaterThan(base * 1.19);
    }
  });

  test("the ends of random's range give exactly −20% and (almost) +20%", () => {
    expect(nextAttemptDelay(2, { random: () => 0 })).toBe(240_000);
    expect(nextAttemptDelay(2, { random: () => 0.999999 })).toBe(360_000);
  });

  test("scale runs the schedule in milliseconds", () => {
    const delays = [1, 2, 3, 4, 5, 6, 7, 8].map((n) => nextAttemptDelay(n, { scale: 0.001, random: middle }));
    expect(delays).toEqual([5, 300, 1_800, 7_200, 18_000, 36_000, 36_000, null]);
  });

  test("a custom schedule sets both the delays and the number of attempts", () => {
    const scheduleMs = [10, 20, 30];
    expect([1, 2, 3, 4].map((n) => nextAttemptDelay(n, { scheduleMs, random: middle }))).toEqual([10, 20, 30, null]);
    expect(maxAttempts(scheduleMs)).toBe(4);
    expect(nextAttemptDelay(1, { scheduleMs: [], random: middle })).toBeNull();
  });

  test("jitter can be turned off", () => {
    expect(nextAttemptDelay(1, { jitter: 0, random: () => 0 })).toBe(5_000);
  });

  test("Retry-After wins when it is longer than the jittered delay", () => {
    expect(nextAttemptDelay(1, { random: middle, retryAfterMs: 60_000 })).toBe(60_000);
    expect(nextAttemptDelay(3, { random: middle, retryAfterMs: 60_000 })).toBe(1_800_000);
    expect(nextAttemptDelay(1, { random: middle, retryAfterMs: null })).toBe(5_000);
  });

  test("Retry-After is capped at 24 h, and a negative one is ignored", () => {
    expect(nextAttemptDelay(1, { random: middle, retryAfterMs: 7 * 86_400_000 })).toBe(MAX_RETRY_AFTER_MS);
    expect(nextAttemptDelay(1, { random: middle, retryAfterMs: 10_000, maxRetryAfterMs: 8_000 })).toBe(8_000);
    expect(nextAttemptDelay(1, { random: middle, retryAfterMs: -5_000 })).toBe(5_000);
  });

  test("Retry-After is real time: scale does not shrink it", () => {
    expect(nextAttemptDelay(1, { scale: 0.001, random: middle, retryAfterMs: 1_000 })).toBe(1_000);
  });

  test("Retry-After does not bring back a dead callback", () => {
    expect(nextAttemptDelay(8, { random: middle, retryAfterMs: 1_000 })).toBeNull();
  });

  test("rejects nonsense arguments", () => {
    expect(() => nextAttemptDelay(0)).toThrow(RangeError);
    expect(() => nextAttemptDelay(1.5)).toThrow(RangeError);
    expect(() => nextAttemptDelay(1, { scale: 0 })).toThrow(RangeError);
    expect(() => nextAttemptDelay(1, { scale: Number.NaN })).toThrow(RangeError);
    expect(() => nextAttemptDelay(1, { jitter: 1 })).toThrow(RangeError);
  });
});

describe("parseRetryAfter", () => {
  const now = Date.parse("2015-10-21T07:28:00Z");

  test("delay-seconds", () => {
    expect(parseRetryAfter("120", now)).toBe(120_000);
    expect(parseRetryAfter(" 0 ", now)).toBe(0);
    expect(parseRetryAfter("2015", now)).toBe(2_015_000); // digits are always seconds, never a year
  });

  test("HTTP-date in all three forms RFC 9110 names, relative to now", () => {
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:30:00 GMT", now)).toBe(120_000);
    expect(parseRetryAfter("Wednesday, 21-Oct-15 07:30:00 GMT", now)).toBe(120_000);
    expect(parseRetryAfter("Wed Oct 21 07:30:00 2015", now)).toBe(120_000);
    expect(parseRetryAfter("Wed Oct  1 07:30:00 2015", Date.parse("2015-10-01T07:28:00Z"))).toBe(120_000);
  });

  test("asctime dates are GMT whatever the local time zone", () => {
    const before = process.env.TZ;
    process.env.TZ = "America/New_York";
    try {
      expect(new Date(0).getTimezoneOffset()).not.toBe(0);
      expect(parseRetryAfter("Wed Oct 21 07:30:00 2015", now)).toBe(120_000);
    } finally {
      if (before === undefined) delete process.env.TZ;
      else process.env.TZ = before;
    }
  });

  test("a date in the past means no wait", () => {
    expect(parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now)).toBe(0);
  });

  test("absent or malformed values give null", () => {
    for (const value of [
      null,
      undefined,
      "",
      "  ",
      "-5",
      "1.5",
      "soon",
      "2015-10-21T07:30:00Z",
      "Wed, 21 Oct 2015 07:30:00 +0200",
      "Wed, 99 Oct 2015 07:30:00 GMT",
    ]) {
      expect(parseRetryAfter(value, now)).toBeNull();
    }
  });
});
