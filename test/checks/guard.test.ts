// Per-endpoint protection of check services (src/checks/guard.ts, the callbacks' guard reused): a
// circuit that stops asking a check that keeps failing, a cap on requests out while some are slow,
// each kept per check so one check's service never stops another's.
import { expect, test } from "bun:test";
import { FAILURES_TO_OPEN, FIRST_COOLDOWN_MS, SLOW_MS, type EndpointChange } from "../../src/callbacks/endpoints.ts";
import { type CheckAnswer, checkEndpoint, createCheckGuard, slowAfterMs } from "../../src/checks/index.ts";
import { check } from "./fixtures.ts";

const T0 = 1_000_000;
const ERROR: CheckAnswer = { outcome: "error", error: "HTTP 500" };
const PASS: CheckAnswer = { outcome: "pass", reason: "" };

/** An exchange the test ends when it likes. */
function pending() {
  let end: (answer: CheckAnswer) => void = () => {};
  const promise = new Promise<CheckAnswer>((resolve) => {
    end = resolve;
  });
  return { exchange: () => promise, end };
}

test("a request is slow at 3/4 of its timeout, never later than the callbacks' SLOW_MS", () => {
  expect(slowAfterMs(800)).toBe(600);
  expect(slowAfterMs(4_000)).toBe(SLOW_MS);
  expect(slowAfterMs(1)).toBe(1);
});

test("a check's endpoint is its name with its URL's origin and path pattern", () => {
  expect(checkEndpoint(check()).key).not.toBe(checkEndpoint(check({ name: "dnc" })).key);
  expect(checkEndpoint(check({ url: "https://s.example/c/123" })).key).toBe(checkEndpoint(check({ url: "https://s.example/c/456?x=1" })).key);
});

test(`after ${FAILURES_TO_OPEN} failed requests in a row the check is paused: errors at once, no request, until a probe after the cooldown`, async () => {
  let now = T0;
  const changes: EndpointChange[] = [];
  const guard = createCheckGuard({ onChange: (change) => changes.push(change) });
  const scrub = check();
  for (let i = 0; i < FAILURES_TO_OPEN; i++) {
    const { admitted, answer } = guard.guard(
      scrub,
      () => now,
      async () => ERROR,
    );
    expect(admitted).toBe("sent");
    await answer;
  }
  expect(changes).toMatchObject([{ pausedUntil: T0 + FIRST_COOLDOWN_MS, failures: FAILURES_TO_OPEN, lastError: "HTTP 500" }]);
  let asked = 0;
  const paused = guard.guard(
    scrub,
    () => now,
    async () => {
      asked++;
      return PASS;
    },
  );
  expect(paused.admitted).toBe("paused");
  expect(await paused.answer).toMatchObject({ outcome: "error", error: expect.stringContaining("paused after 5 failures") });
  expect(asked).toBe(0);
  // Another check on the same service is not paused.
  expect(
    guard.guard(
      check({ name: "dnc" }),
      () => now,
      async () => PASS,
    ).admitted,
  ).toBe("sent");
  // After the cooldown one probe goes; its answer closes the circuit.
  now += FIRST_COOLDOWN_MS;
  const probe = guard.guard(
    scrub,
    () => now,
    async () => PASS,
  );
  expect(probe.admitted).toBe("sent");
  await probe.answer;
  expect(changes.at(-1)?.pausedUntil).toBeNull();
  expect(
    guard.guard(
      scrub,
      () => now,
      async () => PASS,
    ).admitted,
  ).toBe("sent");
});

test("an answer between failures starts the count again: a service that mostly answers is never paused", async () => {
  const guard = createCheckGuard();
  const scrub = check();
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < FAILURES_TO_OPEN - 1; i++)
      await guard.guard(
        scrub,
        () => T0,
        async () => ERROR,
      ).answer;
    await guard.guard(
      scrub,
      () => T0,
      async () => PASS,
    ).answer;
  }
  expect(
    guard.guard(
      scrub,
      () => T0,
      async () => PASS,
    ).admitted,
  ).toBe("sent");
});

test("while requests to a check are slow it has at most maxSlow out; the others error at once; a busy healthy check is not capped", async () => {
  const guard = createCheckGuard({ maxSlow: 2 });
  const slowCheck = check({ timeout_ms: 40 }); // slow after 30 ms
  const out = [pending(), pending(), pending()];
  for (const request of out) expect(guard.guard(slowCheck, () => T0, request.exchange).admitted).toBe("sent");
  await Bun.sleep(60);
  const refused = guard.guard(
    slowCheck,
    () => T0,
    async () => PASS,
  );
  expect(refused.admitted).toBe("busy");
  expect(await refused.answer).toEqual({ outcome: "error", error: "2 slow requests out" });
  for (const request of out) request.end(PASS);
  await Bun.sleep(0);
  expect(
    guard.guard(
      slowCheck,
      () => T0,
      async () => PASS,
    ).admitted,
  ).toBe("sent");

  // Many requests out, none slow: all go.
  const busy = check({ name: "busy", timeout_ms: 10_000 });
  const many = Array.from({ length: 50 }, () => pending());
  expect(many.map((request) => guard.guard(busy, () => T0, request.exchange).admitted).every((admitted) => admitted === "sent")).toBe(true);
  for (const request of many) request.end(PASS);
});
