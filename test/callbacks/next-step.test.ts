import { describe, expect, test } from "bun:test";
import { answeredForGood, nextStep } from "../../src/callbacks/next-step.ts";

const backoff = { scheduleMs: [1000, 2000], jitter: 0 };
const now = 1_000_000;

describe("nextStep", () => {
  test.each([200, 201, 204, 299])("%i → delivered", (statusCode) => {
    expect(nextStep({ statusCode, retryAfterMs: null }, 1, backoff, now)).toEqual({ kind: "delivered" });
  });

  test("410 Gone → dead at once, whatever attempts remain", () => {
    expect(nextStep({ statusCode: 410, retryAfterMs: null }, 1, backoff, now)).toEqual({ kind: "dead" });
  });

  test.each([[500], [404], [301], [null]])("%p → retried on the schedule", (statusCode) => {
    expect(nextStep({ statusCode, retryAfterMs: null }, 1, backoff, now)).toEqual({ kind: "retry", at: now + 1000 });
    expect(nextStep({ statusCode, retryAfterMs: null }, 2, backoff, now)).toEqual({ kind: "retry", at: now + 2000 });
  });

  test("after the schedule's last wait the callback is dead", () => {
    expect(nextStep({ statusCode: 500, retryAfterMs: null }, 3, backoff, now)).toEqual({ kind: "dead" });
  });

  test("a longer Retry-After is honoured", () => {
    expect(nextStep({ statusCode: 429, retryAfterMs: 60_000 }, 1, backoff, now)).toEqual({ kind: "retry", at: now + 60_000 });
  });

  // An endpoint answering 410 for many callbacks works: its circuit (endpoints.ts) must not open
  // and postpone its other callbacks for an answer the receiver gives on purpose.
  test("a 2xx or 410 is an answer for good (the endpoint works); a 5xx, 404 or no answer is not", () => {
    expect([200, 204, 410, 500, 404, 429, null].map(answeredForGood)).toEqual([true, true, true, false, false, false, false]);
  });
});
