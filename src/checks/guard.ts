// Per-endpoint protection of check services: the callbacks' guard (src/callbacks/endpoints.ts),
// reused as it is, around each exchange. A check's endpoint is its name with its URL's origin and
// path pattern, so one check's dead service never pauses another check, even on the same host.
//
// - The circuit: after FAILURES_TO_OPEN requests in a row got no answer (a timeout, a non-2xx, an
//   unreadable body), the check is not asked for a cooldown (5 s, doubling up to 5 min); one probe
//   then goes out. Meanwhile each lead gets an immediate error (`on_error` decides), so a dead
//   service costs intake nothing, not its timeout per lead.
// - The cap on slow requests: a request out for 3/4 of its timeout (at most the callbacks' SLOW_MS)
//   is slow; while one is, the check has at most MAX_SLOW_PER_CHECK requests out, the others get an
//   immediate error. So a service that hangs holds a bounded number of connections (http-client.ts:
//   one per request out) and ties up nothing other checks need; a healthy one, however busy, is not
//   capped.
//
// What the guard cannot bound: the requests sent before the first turned slow or failed (at most
// one timeout's worth of leads); each still waits only its own timeout. In memory, per instance,
// like the callbacks' guard: each instance learns of a dead service from its own requests.
import { createEndpointGuard, type Endpoint, type EndpointChange, endpointOf, SLOW_MS } from "../callbacks/endpoints.ts";
import type { CompiledCheck } from "./entry.ts";
import type { CheckAnswer } from "./send.ts";

/** Requests one check may have out while one of them is slow. */
export const MAX_SLOW_PER_CHECK = 16;

/** When a request to a check counts as slow: 3/4 of its timeout, and never later than SLOW_MS. */
export const slowAfterMs = (timeoutMs: number): number => Math.max(1, Math.min(SLOW_MS, Math.floor((timeoutMs * 3) / 4)));

export const checkEndpoint = (check: Pick<CompiledCheck, "name" | "url">): Endpoint => endpointOf(`check:${check.name}`, check.url);

// A compiled check lives as long as its policy version: its endpoint is worked out once, not per lead.
const endpoints = new WeakMap<GuardedCheck, Endpoint>();
function endpointOfCheck(check: GuardedCheck): Endpoint {
  let endpoint = endpoints.get(check);
  if (endpoint === undefined) {
    endpoint = checkEndpoint(check);
    endpoints.set(check, endpoint);
  }
  return endpoint;
}

/** What the guard needs of a check (the checks' thread knows a check by these alone). */
export type GuardedCheck = Pick<CompiledCheck, "name" | "url" | "timeoutMs">;

/** Why an exchange was not attempted, or "sent". */
export type Admitted = "sent" | "paused" | "busy";

export interface CheckGuard {
  /**
   * Runs `exchange` if the check's endpoint admits it, telling the guard when it turns slow and how
   * it ended; otherwise answers an error at once. The promise settles when the exchange does.
   */
  guard(check: GuardedCheck, now: () => number, exchange: () => Promise<CheckAnswer>): { admitted: Admitted; answer: Promise<CheckAnswer> };
  /** Forgets every endpoint (the service stops). */
  forgetAll(now: number): void;
  size(): number;
}

export function createCheckGuard(options: { maxSlow?: number; onChange?: (change: EndpointChange) => void } = {}): CheckGuard {
  const maxSlow = options.maxSlow ?? MAX_SLOW_PER_CHECK;
  const endpoints = createEndpointGuard({ maxSlow: () => maxSlow, onChange: options.onChange });
  let requests = 0;
  return {
    guard(check, now, exchange) {
      const endpoint = endpointOfCheck(check);
      const admission = endpoints.admit(endpoint, now());
      if (admission.kind === "open")
        return {
          admitted: "paused",
          answer: Promise.resolve({ outcome: "error", error: `paused after ${admission.failures} failures until ${new Date(admission.until).toISOString()}` }),
        };
      if (admission.kind === "overCap") return { admitted: "busy", answer: Promise.resolve({ outcome: "error", error: `${maxSlow} slow requests out` }) };
      // Each request is its own "callback" to the guard: FAILURES_TO_OPEN failed requests open the circuit.
      const requestId = String(++requests);
      let slow = false;
      const timer = setTimeout(() => {
        slow = true;
        endpoints.slow(endpoint, now());
      }, slowAfterMs(check.timeoutMs));
      const answer = exchange().then((result) => {
        clearTimeout(timer);
        const answered = result.outcome !== "error";
        endpoints.settled(endpoint, { callbackId: requestId, answered, slow, error: answered ? null : result.error }, now());
        return result;
      });
      return { admitted: "sent", answer };
    },
    forgetAll: (at) => endpoints.forgetAll(at),
    size: () => endpoints.size(),
  };
}
