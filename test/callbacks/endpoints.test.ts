// The per-endpoint guard of callback delivery (callbacks/endpoints.ts): a cap on slow requests per
// endpoint, and a circuit that opens when the attempts of several callbacks fail in a row, kept per
// vendor and path, with cooldowns that follow the retry scale.
import { expect, test } from "bun:test";
import {
  createEndpointGuard,
  endpointOf,
  FAILURES_TO_OPEN,
  FIRST_COOLDOWN_MS,
  MAX_COOLDOWN_MS,
  OVER_CAP_WAIT_MS,
  SLOW_MS,
  type EndpointChange,
} from "../../src/callbacks/endpoints.ts";

const HOOK = endpointOf("vendor-a", "https://vendor.example/hook");
const T0 = 1_000_000;
const at = (url: string, vendor = "vendor-a") => endpointOf(vendor, url);

/** Trips HOOK's circuit at `now`: FAILURES_TO_OPEN callbacks each fail once. */
function trip(guard: ReturnType<typeof createEndpointGuard>, now: number) {
  for (let i = 0; i < FAILURES_TO_OPEN; i++) {
    expect(guard.admit(HOOK, now).kind).toBe("send");
    guard.settled(HOOK, { callbackId: `cb-${i}`, answered: false, slow: false }, now);
  }
}

test("an endpoint is a vendor's origin and path: the lead in its query or an id in its path does not make another; another path, host, port or vendor does", () => {
  const key = (url: string, vendor = "vendor-a") => at(url, vendor).key;
  expect(key("https://vendor.example/hook?lead=1")).toBe(key("https://vendor.example/hook?lead=2"));
  expect(key("https://vendor.example/hooks/1")).toBe(key("https://vendor.example/hooks/2"));
  expect(key(`https://vendor.example/leads/${crypto.randomUUID()}/result`)).toBe(key(`https://vendor.example/leads/${crypto.randomUUID()}/result`));
  expect(at("https://vendor.example/hooks/1").target).toBe("https://vendor.example/hooks/*");
  expect(key("https://vendor.example/dead")).not.toBe(key("https://vendor.example/flaky"));
  expect(key("https://vendor.example:8443/hook")).not.toBe(key("https://vendor.example/hook"));
  expect(key("https://other.example/hook")).not.toBe(key("https://vendor.example/hook"));
  expect(key("https://vendor.example/hook", "vendor-b")).not.toBe(key("https://vendor.example/hook", "vendor-a"));
});

test("a working endpoint is forgotten once nothing is out to it; a failing one is remembered", () => {
  const guard = createEndpointGuard({ maxSlow: () => 2 });
  for (let i = 0; i < 1_000; i++) {
    const endpoint = at(`https://vendor-${i}.example`);
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
  expect(guard.admit(at("https://other.example/hook"), T0 + SLOW_MS).kind).toBe("send");
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
  expect(guard.admit(at("https://other.example/hook"), T0 + 2).kind).toBe("send");
});

test("after the cooldown one probe goes (half open): success closes the circuit, failure opens it for twice as long, up to the maximum", () => {
  const guard = createEndpointGuard({ maxSlow: () => 8 });
  trip(guard, T0);
  let now = T0 + FIRST_COOLDOWN_MS;
  expect(guard.admit(HOOK, now).kind).toBe("send"); // the probe
  expect(guard.admit(HOOK, now)).toEqual({ kind: "open", until: now + FIRST_COOLDOWN_MS, failures: FAILURES_TO_OPEN }); // one probe at a time
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

test("one vendor's failures open no circuit for another vendor on the same URL, nor for the same vendor's other path", () => {
  const guard = createEndpointGuard({ maxSlow: () => 8 });
  trip(guard, T0);
  expect(guard.admit(HOOK, T0 + 1).kind).toBe("open");
  expect(guard.admit(at("https://vendor.example/hook", "vendor-b"), T0 + 1).kind).toBe("send");
  expect(guard.admit(at("https://vendor.example/other-hook"), T0 + 1).kind).toBe("send");
});

test("the cooldowns follow the retry scale", () => {
  const scale = 0.001;
  const guard = createEndpointGuard({ maxSlow: () => 8, scale });
  trip(guard, T0);
  expect(guard.admit(HOOK, T0 + 1)).toEqual({ kind: "open", until: T0 + FIRST_COOLDOWN_MS * scale, failures: FAILURES_TO_OPEN });
  // Failed probes double it, up to the maximum, scaled too.
  let now = T0 + FIRST_COOLDOWN_MS * scale;
  let cooldown = 0;
  for (let i = 0; i < 20; i++) {
    expect(guard.admit(HOOK, now).kind).toBe("send");
    guard.settled(HOOK, { callbackId: "probe", answered: false, slow: false }, now);
    const open = guard.admit(HOOK, now);
    if (open.kind !== "open") throw new Error(`expected open, got ${open.kind}`);
    cooldown = open.until - now;
    now = open.until;
  }
  expect(cooldown).toBe(MAX_COOLDOWN_MS * scale);
});

test("each opening and the closing are told, with when the endpoint is tried again and the last error", () => {
  const changes: EndpointChange[] = [];
  const guard = createEndpointGuard({ maxSlow: () => 8, onChange: (change) => changes.push(change) });
  for (let i = 0; i < FAILURES_TO_OPEN; i++) {
    guard.admit(HOOK, T0);
    guard.settled(HOOK, { callbackId: `cb-${i}`, answered: false, slow: false, error: "HTTP 503" }, T0);
  }
  expect(changes).toEqual([{ endpoint: HOOK, pausedUntil: T0 + FIRST_COOLDOWN_MS, failures: FAILURES_TO_OPEN, lastError: "HTTP 503", now: T0 }]);
  guard.admit(HOOK, T0 + FIRST_COOLDOWN_MS);
  guard.settled(HOOK, { callbackId: "probe", answered: false, slow: false, error: "Timed out" }, T0 + FIRST_COOLDOWN_MS);
  expect(changes[1]).toMatchObject({ pausedUntil: T0 + 3 * FIRST_COOLDOWN_MS, lastError: "Timed out" });
  guard.admit(HOOK, T0 + 3 * FIRST_COOLDOWN_MS);
  guard.settled(HOOK, { callbackId: "probe", answered: true, slow: false }, T0 + 3 * FIRST_COOLDOWN_MS);
  expect(changes[2]).toMatchObject({ endpoint: HOOK, pausedUntil: null });
  expect(changes).toHaveLength(3);
  // A working endpoint's successes tell nothing.
  guard.admit(HOOK, T0 + 4 * FIRST_COOLDOWN_MS);
  guard.settled(HOOK, { callbackId: "ok", answered: true, slow: false }, T0 + 4 * FIRST_COOLDOWN_MS);
  expect(changes).toHaveLength(3);
});
