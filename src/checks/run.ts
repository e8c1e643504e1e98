// Runs a lead's checks (docs/contract.md §11): all at once, each answered from the cache when it
// can be, else through its endpoint's guard (guard.ts) by a signed request (request.ts, send.ts)
// with its own deadline. Every check's result is in hand by its timeout_ms at the latest, so the
// lead's whole wait is bounded by the longest of them, whatever a service or the network does: a
// request that outlives its deadline is aborted and its late answer ignored.
import type { EndpointChange } from "../callbacks/endpoints.ts";
import type { Lookup } from "../callbacks/ssrf.ts";
import type { LeadFacts } from "../policy/index.ts";
import { checkAddresses } from "./address.ts";
import { Cancel } from "./cancel.ts";
import { type AnswerCache, createAnswerCache } from "./cache.ts";
import type { CompiledCheck } from "./entry.ts";
import { type Admitted, createCheckGuard, type GuardedCheck } from "./guard.ts";
import { createHttpClient, type HttpClient } from "./http-client.ts";
import { type SignedRequest, signedCheckRequest } from "./request.ts";
import { type CheckAnswer, sendCheck } from "./send.ts";

export interface CheckResult {
  check: CompiledCheck;
  answer: CheckAnswer;
  /** Where the answer came from: the service, the cache, or the guard without a request (paused: circuit open; busy: slow requests at the cap). */
  source: "request" | "cache" | Exclude<Admitted, "sent">;
  /** How long the lead waited for it (0 from the cache or the guard). */
  durationMs: number;
}

export interface CheckExchangeDeps {
  clock: () => number;
  /** Private and loopback addresses allowed (the callbacks' setting: development and tests). */
  allowPrivate: boolean;
  /** Injected for tests; default the checks' own HTTP client (http-client.ts), closed by forget(). */
  client?: HttpClient;
  lookup?: Lookup;
  /** A check's circuit opened (pausedUntil) or closed (null): for logs and metrics. */
  onPause?: (change: EndpointChange) => void;
  maxSlowPerCheck?: number;
}

export interface CheckRunnerDeps extends CheckExchangeDeps {
  /** The `checks` signing secret ("whsec_…"), read for each request so a new one applies at once. */
  secret: () => string;
  cache?: AnswerCache;
}

export interface CheckRunner {
  /** Runs `checks` for a lead (`leadId` at the final stage only); results in the order of `checks`. */
  run(checks: readonly CompiledCheck[], facts: LeadFacts, leadId?: string): Promise<CheckResult[]>;
  /** Forgets the guard's endpoints, the cached answers and addresses, and closes idle connections (the service stops, or a test starts over). */
  forget(): void;
}

/** A signed request's exchange: its answer, where that came from, and how long it took. */
export type Exchanged = Omit<CheckResult, "check">;

export interface CheckExchanges {
  /** Sends `request` through the check's guard, within its timeout: settles by then at the latest, never rejects. */
  exchange(check: GuardedCheck, request: SignedRequest): Promise<Exchanged>;
  forget(): void;
}

export const timedOut = (ms: number) => `timed out after ${ms} ms`;

/** The guard, the addresses and the HTTP client: what a request needs, on whichever thread sends it (thread.ts at intake, the runner below at the final stage). */
export function createCheckExchanges(deps: CheckExchangeDeps): CheckExchanges {
  const guard = createCheckGuard({ maxSlow: deps.maxSlowPerCheck, onChange: deps.onPause });
  const client = deps.client ?? createHttpClient();
  const addresses = checkAddresses({ allowPrivate: deps.allowPrivate, lookup: deps.lookup });
  const send = { client, allowPrivate: deps.allowPrivate, lookup: deps.lookup, addresses };
  return {
    exchange(check, request) {
      const started = performance.now();
      const cancel = new Cancel();
      const { admitted, answer } = guard.guard(check, deps.clock, () => sendCheck(check.url, check.name, request, send, cancel));
      if (admitted !== "sent") return answer.then((answer) => ({ answer, source: admitted, durationMs: 0 }));
      // One promise settled by whichever comes first, the answer or the deadline (which ends the request).
      const { promise, resolve } = Promise.withResolvers<Exchanged>();
      const deadline = setTimeout(() => {
        cancel.cancel();
        resolve({ answer: { outcome: "error", error: timedOut(check.timeoutMs) }, source: "request", durationMs: Math.round(performance.now() - started) });
      }, check.timeoutMs);
      answer.then((answer) => {
        clearTimeout(deadline);
        resolve({ answer, source: "request", durationMs: Math.round(performance.now() - started) });
      });
      return promise;
    },
    forget() {
      guard.forgetAll(deps.clock());
      addresses.clear();
      client.close();
    },
  };
}

/** A malformed secret is the operator's to fix; the lead is judged by on_error meanwhile. */
export const notSigned = (error: unknown): CheckAnswer => ({ outcome: "error", error: `not signed: ${(error as Error).message}` });

export function createCheckRunner(deps: CheckRunnerDeps): CheckRunner {
  const cache = deps.cache ?? createAnswerCache();
  const exchanges = createCheckExchanges(deps);

  async function runOne(check: CompiledCheck, facts: LeadFacts, leadId: string | undefined): Promise<CheckResult> {
    const phone = facts.lead.phoneE164;
    const now = deps.clock();
    if (check.cacheMs > 0 && phone) {
      const cached = cache.get(check.cacheKey, phone, now);
      if (cached) return { check, answer: cached, source: "cache", durationMs: 0 };
    }
    let request: SignedRequest;
    try {
      request = signedCheckRequest({ check, facts, leadId, secret: deps.secret(), now });
    } catch (error) {
      return { check, answer: notSigned(error), source: "request", durationMs: 0 };
    }
    const exchanged = await exchanges.exchange(check, request);
    if (exchanged.answer.outcome !== "error" && check.cacheMs > 0 && phone) cache.set(check.cacheKey, phone, exchanged.answer, check.cacheMs, deps.clock());
    return { check, ...exchanged };
  }

  return {
    run: (checks, facts, leadId) => Promise.all(checks.map((check) => runOne(check, facts, leadId))),
    forget() {
      exchanges.forget();
      cache.clear();
    },
  };
}
