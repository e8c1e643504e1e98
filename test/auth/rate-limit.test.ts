// docs/contract.md §3: per-vendor token bucket; over the limit → refused with a Retry-After in seconds.
import { describe, expect, test } from "bun:test";
import { createRateLimiter } from "../../src/auth/rate-limit.ts";
import { fakeClock } from "../helpers/clock.ts";

const takeMany = (limiter: ReturnType<typeof createRateLimiter>, key: string, n: number) => Array.from({ length: n }, () => limiter.take(key).ok);

describe("createRateLimiter", () => {
  test("allows a burst at once, then refuses", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 10, burst: 5 }, clock.now);
    expect(takeMany(limiter, "v1", 5)).toEqual([true, true, true, true, true]);
    expect(limiter.take("v1")).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  test("refills at perSecond", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 10, burst: 5 }, clock.now);
    takeMany(limiter, "v1", 5);
    clock.advance(100); // one token
    expect(limiter.take("v1").ok).toBe(true);
    expect(limiter.take("v1").ok).toBe(false);
    clock.advance(300); // three tokens
    expect(takeMany(limiter, "v1", 4)).toEqual([true, true, true, false]);
  });

  test("a partial token is not enough", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 10, burst: 1 }, clock.now);
    limiter.take("v1");
    clock.advance(99);
    expect(limiter.take("v1").ok).toBe(false);
    clock.advance(1);
    expect(limiter.take("v1").ok).toBe(true);
  });

  test("refusals do not use up tokens", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 1, burst: 1 }, clock.now);
    limiter.take("v1");
    for (let i = 0; i < 10; i++) limiter.take("v1");
    clock.advance(1_000);
    expect(limiter.take("v1").ok).toBe(true);
  });

  test("an idle vendor gets at most the burst back", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 100, burst: 3 }, clock.now);
    takeMany(limiter, "v1", 3);
    clock.advance(3_600_000);
    expect(takeMany(limiter, "v1", 4)).toEqual([true, true, true, false]);
  });

  test("vendors have separate buckets", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 1, burst: 2 }, clock.now);
    expect(takeMany(limiter, "v1", 3)).toEqual([true, true, false]);
    expect(takeMany(limiter, "v2", 3)).toEqual([true, true, false]);
  });

  test("Retry-After is the whole seconds until the next token, at least 1", () => {
    const clock = fakeClock();
    const slow = createRateLimiter({ perSecond: 1, burst: 1 }, clock.now);
    slow.take("v1");
    expect(slow.take("v1")).toEqual({ ok: false, retryAfterSeconds: 1 });
    clock.advance(400);
    expect(slow.take("v1")).toEqual({ ok: false, retryAfterSeconds: 1 });

    const fast = createRateLimiter({ perSecond: 1000, burst: 1 }, clock.now);
    fast.take("v1");
    expect(fast.take("v1")).toEqual({ ok: false, retryAfterSeconds: 1 });
  });

  test("after Retry-After seconds the request is allowed", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 1, burst: 1 }, clock.now);
    limiter.take("v1");
    const refused = limiter.take("v1");
    if (refused.ok) throw new Error("expected a refusal");
    clock.advance(refused.retryAfterSeconds * 1000);
    expect(limiter.take("v1").ok).toBe(true);
  });

  test("at a fractional rate, asked every second, the wait counts down and the request is allowed when it ends (no float dust)", () => {
    const clock = fakeClock();
    for (const seconds of [3, 6, 7, 12]) {
      const limiter = createRateLimiter({ perSecond: 1 / seconds, burst: 10 }, clock.now);
      takeMany(limiter, "v1", 10);
      for (let waited = 0; waited < seconds; waited++, clock.advance(1_000))
        expect(limiter.take("v1")).toEqual({ ok: false, retryAfterSeconds: seconds - waited });
      expect(limiter.take("v1").ok).toBe(true);
    }
  });

  test("perSecond 0 turns the limit off", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 0, burst: 1 }, clock.now);
    expect(takeMany(limiter, "v1", 1_000).every(Boolean)).toBe(true);
  });
});

describe("looking without taking (the failure throttle's questions)", () => {
  test("waitSeconds is 0 while a token is left, then the seconds until the next; it takes nothing", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 1 / 3, burst: 2 }, clock.now);
    expect(limiter.waitSeconds("a")).toBe(0);
    takeMany(limiter, "a", 2);
    expect(limiter.waitSeconds("a")).toBe(3);
    expect(limiter.waitSeconds("a")).toBe(3);
    clock.advance(2_000);
    expect(limiter.waitSeconds("a")).toBe(1);
    clock.advance(1_000);
    expect(limiter.waitSeconds("a")).toBe(0);
    expect(limiter.take("a").ok).toBe(true);
  });

  test("isDrawn: a key used lately, until its bucket is full again", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 1, burst: 3 }, clock.now);
    expect(limiter.isDrawn("a")).toBe(false);
    limiter.take("a");
    expect(limiter.isDrawn("a")).toBe(true);
    expect(limiter.isDrawn("b")).toBe(false);
    clock.advance(999);
    expect(limiter.isDrawn("a")).toBe(true);
    clock.advance(1);
    expect(limiter.isDrawn("a")).toBe(false);
  });

  test("buckets full again are forgotten once a refill time: only keys used lately are held", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 1, burst: 2 }, clock.now); // full again after 2 s
    for (let i = 0; i < 1_000; i++) limiter.take(`k${i}`);
    expect(limiter.size()).toBe(1_000);
    clock.advance(1_999);
    limiter.take("k0");
    expect(limiter.size()).toBe(1_000);
    clock.advance(1);
    limiter.take("k1"); // the sweep: every bucket but k0's (drawn 1 ms ago) is full again
    expect(limiter.size()).toBe(2);
    expect(takeMany(limiter, "k2", 3)).toEqual([true, true, false]);
  });

  test("a bucket not yet full is kept through a sweep: it keeps what it drew", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 1, burst: 2 }, clock.now);
    limiter.take("other");
    clock.advance(1_500);
    takeMany(limiter, "drawn", 2);
    clock.advance(500);
    limiter.take("other"); // the sweep: "drawn" holds half a token
    expect(limiter.size()).toBe(2);
    expect(limiter.take("drawn").ok).toBe(false);
    clock.advance(500);
    expect(takeMany(limiter, "drawn", 2)).toEqual([true, false]);
  });

  test("past maxKeys the oldest key is forgotten, with a full bucket", () => {
    const clock = fakeClock();
    const limiter = createRateLimiter({ perSecond: 1, burst: 1, maxKeys: 2 }, clock.now);
    for (const key of ["a", "b", "c"]) limiter.take(key);
    expect(limiter.isDrawn("a")).toBe(false);
    expect(limiter.take("a").ok).toBe(true);
    expect(limiter.take("c").ok).toBe(false);
  });
});
