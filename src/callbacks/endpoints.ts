// Per-endpoint protection for callback delivery, so that one failing endpoint cannot slow intake
// or the other endpoints' callbacks. Two rules, in memory, per instance:
//
// - A cap on slow endpoints: a request out for longer than SLOW_MS no longer holds a delivery slot
//   (callbacks/job.ts), and an endpoint with such a request out may have at most `maxSlow` requests
//   out. So an endpoint that hangs until the attempt timeout holds the slots for a second, never for
//   the timeout, while a healthy endpoint, however busy, is not capped at all (a cap on all requests
//   held bench:steady's one healthy endpoint to a few dozen callbacks/s).
// - A circuit (the three states of Convoy's breaker): once the attempts of FAILURES_TO_OPEN
//   different callbacks have failed in a row (so one callback's own retries never trip it) the
//   endpoint is "open" for a cooldown. When it ends one probe goes out (half open): success closes
//   the circuit, failure opens it again for twice as long, up to the maximum. Cooldowns follow the
//   retry schedule's scale, like the schedule itself. The probe is the endpoint's callback claimed
//   first (due first), not one due for a retry by preference: a callback its receiver always
//   refuses would then reopen a working endpoint at each of its retries (docs/callbacks.md).
//
// An attempt either rule stops is not made: the job gives the callback back to the queue, due when
// the pause ends, its attempts unchanged (docs/contract.md §8: postponed, not counted). So a callback
// dies only after its schedule's attempts were really sent.
//
// Pure apart from its map: the caller passes the time, and hears of each circuit that opens or
// closes through `onChange` (recorded for operators: callbacks/pauses.ts).

export const FAILURES_TO_OPEN = 5;
/** A request out this long is slow: it frees its slot and counts against its endpoint's cap. */
export const SLOW_MS = 1_000;
/** Cooldowns at scale 1. */
export const FIRST_COOLDOWN_MS = 5_000;
export const MAX_COOLDOWN_MS = 300_000;
/** A callback for an endpoint at its cap waits this long before it is due again (real time: slowness is). */
export const OVER_CAP_WAIT_MS = 1_000;
/** Endpoints idle and closed (or left open with nothing to send) for this long are forgotten. */
const FORGET_AFTER_MS = 2 * MAX_COOLDOWN_MS;

/**
 * What a circuit is kept for. Keyed by vendor, origin and path pattern:
 * - by vendor, so that one vendor's failing receiver never postpones another's callbacks, even on a
 *   shared host (a CRM or an integration platform serving many vendors);
 * - by path too, so that a broken path (`/dead`) does not pause the same vendor's working one
 *   (`/flaky`) on the same server: each integration fails or works on its own;
 * - with each path segment that holds a digit folded to `*`, and the query left out, so that URLs
 *   carrying the lead or a record id (`/hooks/1234`, `/leads/<uuid>/result`, `?lead=…`) still
 *   share one circuit: keyed by the whole path, a down server would never trip one, and every lead
 *   would hold an entry.
 */
export interface Endpoint {
  key: string;
  vendorId: string;
  /** The origin and path pattern, as operators read it. */
  target: string;
}

export function endpointOf(vendorId: string, url: string): Endpoint {
  let target: string;
  try {
    const parsed = new URL(url);
    const pattern = parsed.pathname
      .split("/")
      .map((segment) => (/\d/.test(segment) ? "*" : segment))
      .join("/");
    target = `${parsed.origin}${pattern}`;
  } catch {
    target = url;
  }
  return { key: `${vendorId} ${target}`, vendorId, target };
}

export type Admission = { kind: "send" } | { kind: "overCap"; retryAt: number } | { kind: "open"; until: number; failures: number };

/** A circuit opened (`pausedUntil`: no attempt before then) or closed (null). */
export interface EndpointChange {
  endpoint: Endpoint;
  pausedUntil: number | null;
  failures: number;
  lastError: string | null;
  now: number;
}

interface EndpointState {
  endpoint: Endpoint;
  inFlight: number;
  /** Of those, the slow ones. */
  slow: number;
  /** The callbacks whose attempts failed since the last success (at most FAILURES_TO_OPEN kept). */
  failing: Set<string>;
  lastError: string | null;
  /** While open: no attempt before this time. */
  openUntil: number;
  /** 0 while closed; the current cooldown once it has opened. */
  cooldownMs: number;
  lastActivity: number;
}

export interface GuardOptions {
  /** Requests out at once to an endpoint with slow ones, read on every admission (it follows the slots). */
  maxSlow: () => number;
  /** The retry schedule's scale (--callback-retry-scale): the cooldowns are multiplied by it. */
  scale?: number;
  onChange?: (change: EndpointChange) => void;
}

export function createEndpointGuard(options: GuardOptions) {
  const scale = options.scale ?? 1;
  const firstCooldownMs = Math.max(1, Math.round(FIRST_COOLDOWN_MS * scale));
  const maxCooldownMs = Math.max(firstCooldownMs, Math.round(MAX_COOLDOWN_MS * scale));
  const endpoints = new Map<string, EndpointState>();
  let lastSweep = 0;

  function stateOf(endpoint: Endpoint, now: number): EndpointState {
    let state = endpoints.get(endpoint.key);
    if (!state) {
      state = { endpoint, inFlight: 0, slow: 0, failing: new Set(), lastError: null, openUntil: 0, cooldownMs: 0, lastActivity: now };
      endpoints.set(endpoint.key, state);
    }
    return state;
  }

  function closed(state: EndpointState, now: number): void {
    if (state.cooldownMs > 0) options.onChange?.({ endpoint: state.endpoint, pausedUntil: null, failures: 0, lastError: null, now });
  }

  function sweep(now: number): void {
    if (now - lastSweep < FORGET_AFTER_MS) return;
    lastSweep = now;
    for (const [key, state] of endpoints)
      if (state.inFlight === 0 && state.openUntil < now && now - state.lastActivity > FORGET_AFTER_MS) {
        endpoints.delete(key);
        closed(state, now);
      }
  }

  return {
    /** The endpoints remembered (with requests out, or failing). */
    size: () => endpoints.size,
    /** Forgets every endpoint (the worker stops): each circuit that had opened is told closed, as nothing here pauses it any more. */
    forgetAll(now: number): void {
      for (const state of endpoints.values()) closed(state, now);
      endpoints.clear();
    },
    /** Whether a request to `endpoint` may go now; "send" counts it in flight until `settled`. */
    admit(endpoint: Endpoint, now: number): Admission {
      sweep(now);
      const state = stateOf(endpoint, now);
      const tripped = state.failing.size >= FAILURES_TO_OPEN;
      if (tripped && (now < state.openUntil || state.inFlight > 0)) {
        // Open; or half open with its one probe under way: then for the first cooldown only, so
        // that if the probe is answered the endpoint's waiting callbacks follow soon.
        return { kind: "open", until: now < state.openUntil ? state.openUntil : now + firstCooldownMs, failures: state.failing.size };
      }
      // Slow requests out: the endpoint is capped, fast or slow, until they end.
      if (state.slow > 0 && state.inFlight >= options.maxSlow()) return { kind: "overCap", retryAt: now + OVER_CAP_WAIT_MS };
      state.inFlight++;
      state.lastActivity = now;
      return { kind: "send" };
    },
    /** A request admitted by `admit` has been out for SLOW_MS. */
    slow(endpoint: Endpoint, now: number): void {
      stateOf(endpoint, now).slow++;
    },
    /**
     * A request for `callbackId` admitted by `admit` ended (`slow` if it was marked so): answered
     * for good (a 2xx or 410) or not (`error` says how it failed).
     */
    settled(endpoint: Endpoint, request: { callbackId: string; answered: boolean; slow: boolean; error?: string | null }, now: number): void {
      const { callbackId, answered } = request;
      const state = stateOf(endpoint, now);
      state.inFlight = Math.max(0, state.inFlight - 1);
      if (request.slow) state.slow = Math.max(0, state.slow - 1);
      state.lastActivity = now;
      if (answered) {
        closed(state, now);
        // A working endpoint with nothing out has nothing to remember: the map holds only the
        // endpoints with requests out or failing.
        if (state.inFlight === 0) endpoints.delete(endpoint.key);
        else {
          state.failing.clear();
          state.cooldownMs = 0;
          state.openUntil = 0;
        }
        return;
      }
      state.lastError = request.error ?? null;
      if (state.failing.size < FAILURES_TO_OPEN) state.failing.add(callbackId);
      // A request sent before the circuit opened that fails while it is open does not prolong it.
      if (state.failing.size < FAILURES_TO_OPEN || now < state.openUntil) return;
      state.cooldownMs = state.cooldownMs === 0 ? firstCooldownMs : Math.min(maxCooldownMs, state.cooldownMs * 2);
      state.openUntil = now + state.cooldownMs;
      options.onChange?.({ endpoint, pausedUntil: state.openUntil, failures: state.failing.size, lastError: state.lastError, now });
    },
  };
}

export type EndpointGuard = ReturnType<typeof createEndpointGuard>;
