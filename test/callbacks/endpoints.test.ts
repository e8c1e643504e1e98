// The per-endpoint guard of callback delivery (callbacks/endpoints.ts): a cap on slow requests per
// endpoint, and a circuit that opens when the attempts of several callbacks fail in a row.
import { expect, test } from "bun:test";
import {
  createEndpointGuard,
  endpointOf,
  FAILURES_TO_OPEN,
  FIRST_COOLDOWN_MS,
  MAX_COOLDOWN_MS,
  OVER_CAP_WAIT_MS,
  SLOW_MS,
} from "../../src/callbacks/endpoints.ts";

const HOOK = "https://vendor.example/hook";
const T0 = 1_000_000;

/** Trips HOOK's circuit at `now`: FAILURES_TO_OPEN callbacks each fail once. */
function trip(guard: ReturnType<typeof createEndpointGuard>, now: number) {
  for (let i = 0; i < FAILURES_TO_OPEN; i++) {
    expect(guard.admit(HOOK, now).kind).toBe("send");
    guard.settled(HOOK, { callbackId: `cb-${i}`, answered: false, slow: false }, now);
  }
}

test("an endpoint is a callback URL's origin: the lead in its query or path does not make another, another host or port does", () => {
  expect(endpointOf("https://vendor.example/hook?lead=1")).toBe(endpointOf("https://vendor.example/hook?lead=2"));
  expect(endpointOf("https://vendor.example/hooks/1")).toBe(endpointOf("https://vendor.example/hooks/2"));
  expect(endpointOf("https://vendor.example:8443/hook")).not.toBe(endpointOf("https://vendor.example/hook"));
  expect(endpointOf("https://other.example/hook")).not.toBe(endpointOf("https://vendor.example/hook"));
});

test("a working endpoint is forgotten once nothing is out to it; a failing one is remembered", () => {
  const guard = createEndpointGuard({ maxSlow: () => 2 });
  for (let i = 0; i < 1_000; i++) {
    const endpoint = `https://vendor-${i}.example`;
    guard.admit(endpoint, T0);
    guard.settled(endpoint, { callbackId: `cb-${i}`, answered: true, slow: false }, T0);
  }
  expect(guard.size()).toBe(0);
  guard.admit(HOOK, T0);
  guard.settled(HOOK, { callbackId: "failed", answered: false, slow: false }, T0);
  expect(guard.size()).toBe(1);
});

test("a busy endpoint that answers in time is not capped; one with a slow request out gets no more than maxSlow out, others are not affected", () => {
  const guard = createEndpointGuard({ maxSlow: () => 2 });
  for (let i = 0; i < 10; i++) expect(guard.admit(HOOK, T0).kind).toBe("send");
  for (let i = 0; i < 9; i++) guard.settled(HOOK, { callbackId: `fast-${i}`, answered: true, slow: false }, T0 + 1);
  guard.slow(HOOK, T0 + SLOW_MS); // the tenth is still out
  expect(guard.admit(HOOK, T0 + SLOW_MS).kind).toBe("send");
  expect(guard.admit(HOOK, T0 + SLOW_MS)).toEqual({ kind: "overCap", retryAt: T0 + SLOW_MS + OVER_CAP_WAIT_MS });
  expect(guard.admit("https://other.example/hook", T0 + SLOW_MS).kind).toBe("send");
  guard.settled(HOOK, { callbackId: "slow", answered: true, slow: true }, T0 + 2 * SLOW_MS);
  expect(guard.admit(HOOK, T0 + 2 * SLOW_MS).kind).toBe("send");
  expect(guard.admit(HOOK, T0 + 2 * SLOW_MS).kind).toBe("send"); // no slow request out: no cap
});

test("one callback failing again and again never opens the circuit: its own schedule governs it", () => {
  const guard = createEndpointGuard({ maxSlow: () => 8 });
  for (let i = 0; i < 3 * FAILURES_TO_OPEN; i++) {
    expect(guard.admit(HOOK, T0 + i).kind).toBe("send");
    guard.settled(HOOK, { callbackId: "the-same-callback", answered: false, slow: false }, T0 + i);
  }
  expect(guard.admit(HOOK, T0 + 100).kind).toBe("send");
});

test("the attempts of several callbacks failing in a row open the circuit for a cooldown; a success in between resets the count", () => {
  const guard = createEndpointGuard({ maxSlow: () => 8 });
  for (let i = 0; i < FAILURES_TO_OPEN - 1; i++) {
    guard.admit(HOOK, T0);
    guard.settled(HOOK, { callbackId: `early-${i}`, answered: false, slow: false }, T0);
  }
  guard.admit(HOOK, T0);
  guard.settled(HOOK, { callbackId: "ok", answered: true, slow: false }, T0);
  expect(guard.admit(HOOK, T0).kind).toBe("send"); // the run was broken
  guard.settled(HOOK, { callbackId: "ok-again", answered: true, slow: false }, T0);
  trip(guard, T0 + 1);
  expect(guard.admit(HOOK, T0 + 2)).toEqual({ kind: "open", until: T0 + 1 + FIRST_COOLDOWN_MS, failures: FAILURES_TO_OPEN });
  expect(guard.admit("https://other.example/hook", T0 + 2).kind).toBe("send");
});

test("after the cooldown one probe goes (half open): success closes the circuit, failure opens it for twice as long, up to the maximum", () => {
  const guard = createEndpointGuard({ maxSlow: () => 8 });
  trip(guard, T0);
  let now = T0 + FIRST_COOLDOWN_MS;
  expect(guard.admit(HOOK, now).kind).toBe("send"); // the probe
  expect(guard.admit(HOOK, now).kind).toBe("open"); // one probe at a time
  guard.settled(HOOK, { callbackId: "probe", answered: false, slow: false }, now);
  expect(guard.admit(HOOK, now + 2 * FIRST_COOLDOWN_MS - 1).kind).toBe("open");
  now += 2 * FIRST_COOLDOWN_MS;
  for (let cooldown = 2 * FIRST_COOLDOWN_MS; cooldown < MAX_COOLDOWN_MS; cooldown *= 2) {
    expect(guard.admit(HOOK, now).kind).toBe("send");
    guard.settled(HOOK, { callbackId: "probe", answered: false, slow: false }, now);
    now += Math.min(MAX_COOLDOWN_MS, cooldown * 2);
  }
  expect(guard.admit(HOOK, now - 1).kind).toBe("open"); // the cooldown stays at the maximum
  expect(guard.admit(HOOK, now).kind).toBe("send");
  guard.settled(HOOK, { callbackId: "probe", answered: true, slow: false }, now);
  expect(guard.admit(HOOK, now).kind).toBe("send");
  expect(guard.admit(HOOK, now).kind).toBe("send");
});

test("requests sent before the circuit opened that fail while it is open do not prolong it", () => {
  const guard = createEndpointGuard({ maxSlow: () => 8 });
  for (let i = 0; i < 3; i++) guard.admit(HOOK, T0); // three stragglers out
  trip(guard, T0);
  for (let i = 0; i < 3; i++) guard.settled(HOOK, { callbackId: `straggler-${i}`, answered: false, slow: false }, T0 + 100);
  expect(guard.admit(HOOK, T0 + FIRST_COOLDOWN_MS).kind).toBe("send");
});
