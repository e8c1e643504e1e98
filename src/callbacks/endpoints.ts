// Per-endpoint protection for callback delivery, so that one vendor's failing endpoint cannot slow
// intake or the other vendors' callbacks. An endpoint is a callback URL's origin: a vendor's
// server, whatever lead or path a URL names. Two rules, in memory, per instance:
//
// - A cap on slow endpoints: a request out for longer than SLOW_MS no longer holds a delivery slot
//   (callbacks/job.ts), and an endpoint with such a request out may have at most `maxSlow` requests
//   out; a callback claimed for an endpoint at its cap is given back to the queue for a moment, unsent. So an
//   endpoint that hangs until the attempt timeout holds the slots for a second, never for the
//   timeout, while a healthy endpoint, however busy, is not capped at all (a cap on all requests
//   held bench:steady's one healthy endpoint to a few dozen callbacks/s).
// - A circuit (the three states of Convoy's breaker; Svix only disables an endpoint after days of
//   failures): once the attempts of FAILURES_TO_OPEN different callbacks have failed in a row (so
//   one callback's own retries never trip it) the endpoint is "open" for a cooldown; a callback due meanwhile is not sent
//   but recorded as a failed attempt that says so, and waits for its next retry on the schedule
//   (docs/contract.md §8), so a dead endpoint costs no slot and no timeout, and its callbacks still die on
//   the schedule. When the cooldown ends one probe goes out (half open): success closes the
//   circuit, failure opens it again for twice as long, up to MAX_COOLDOWN_MS.
//
// Pure apart from its map: the caller passes the time.

export const FAILURES_TO_OPEN = 5;
/** A request out this long is slow: it frees its slot and counts against its endpoint's cap. */
export const SLOW_MS = 1_000;
export const FIRST_COOLDOWN_MS = 5_000;
export const MAX_COOLDOWN_MS = 300_000;
/** A callback for an endpoint at its cap waits this long before it is due again. */
export const OVER_CAP_WAIT_MS = 1_000;
/** Endpoints idle and closed for this long are forgotten. */
const FORGET_AFTER_MS = 2 * MAX_COOLDOWN_MS;

export type Admission = { kind: "send" } | { kind: "overCap"; retryAt: number } | { kind: "open"; until: number; failures: number };

interface EndpointState {
  inFlight: number;
  /** Of those, the slow ones. */
  slow: number;
  /** The callbacks whose attempts failed since the last success (at most FAILURES_TO_OPEN kept). */
  failing: Set<string>;
  /** While open: no attempt before this time. */
  openUntil: number;
  cooldownMs: number;
  lastActivity: number;
}

/**
 * The endpoint of a callback URL: its origin (scheme, host, port). A vendor's server fails as a
 * whole, and callback URLs are given per lead, often with the lead in the path: keyed by path, a
 * down server would never trip a circuit and every lead would hold an entry.
 */
export function endpointOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return url;
  }
}

/** `maxSlow`: requests out at once to an endpoint with slow ones, read on every admission (it follows the slots). */
export function createEndpointGuard(options: { maxSlow: () => number }) {
  const endpoints = new Map<string, EndpointState>();
  let lastSweep = 0;

  function stateOf(endpoint: string, now: number): EndpointState {
    let state = endpoints.get(endpoint);
    if (!state) {
      state = { inFlight: 0, slow: 0, failing: new Set(), openUntil: 0, cooldownMs: 0, lastActivity: now };
      endpoints.set(endpoint, state);
    }
    return state;
  }

  function sweep(now: number): void {
    if (now - lastSweep < FORGET_AFTER_MS) return;
    lastSweep = now;
    for (const [endpoint, state] of endpoints)
      if (state.inFlight === 0 && state.openUntil < now && now - state.lastActivity > FORGET_AFTER_MS) endpoints.delete(endpoint);
  }

  return {
    /** The endpoints remembered (with requests out, or failing). */
    size: () => endpoints.size,
    /** Whether a request to `endpoint` may go now; "send" counts it in flight until `settled`. */
    admit(endpoint: string, now: number): Admission {
      sweep(now);
      const state = stateOf(endpoint, now);
      const tripped = state.failing.size >= FAILURES_TO_OPEN;
      if (tripped && (now < state.openUntil || state.inFlight > 0)) {
        // Open, or half open with its one probe under way.
        return { kind: "open", until: now < state.openUntil ? state.openUntil : now + state.cooldownMs, failures: state.failing.size };
      }
      // Slow requests out: the endpoint is capped, fast or slow, until they end.
      if (state.slow > 0 && state.inFlight >= options.maxSlow()) return { kind: "overCap", retryAt: now + OVER_CAP_WAIT_MS };
      state.inFlight++;
      state.lastActivity = now;
      return { kind: "send" };
    },
    /** A request admitted by `admit` has been out for SLOW_MS. */
    slow(endpoint: string, now: number): void {
      stateOf(endpoint, now).slow++;
    },
    /** A request for `callbackId` admitted by `admit` ended (`slow` if it was marked so): answered for good (a 2xx or 410) or not. */
    settled(endpoint: string, request: { callbackId: string; answered: boolean; slow: boolean }, now: number): void {
      const { callbackId, answered } = request;
      const state = stateOf(endpoint, now);
      state.inFlight = Math.max(0, state.inFlight - 1);
      if (request.slow) state.slow = Math.max(0, state.slow - 1);
      state.lastActivity = now;
      if (answered) {
        // A working endpoint with nothing out has nothing to remember: the map holds only the
        // endpoints with requests out or failing.
        if (state.inFlight === 0) endpoints.delete(endpoint);
        else {
          state.failing.clear();
          state.cooldownMs = 0;
          state.openUntil = 0;
        }
        return;
      }
      if (state.failing.size < FAILURES_TO_OPEN) state.failing.add(callbackId);
      // A request sent before the circuit opened that fails while it is open does not prolong it.
      if (state.failing.size < FAILURES_TO_OPEN || now < state.openUntil) return;
      state.cooldownMs = state.cooldownMs === 0 ? FIRST_COOLDOWN_MS : Math.min(MAX_COOLDOWN_MS, state.cooldownMs * 2);
      state.openUntil = now + state.cooldownMs;
    },
  };
}

export type EndpointGuard = ReturnType<typeof createEndpointGuard>;
