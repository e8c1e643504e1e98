// The worker's second job: deliver due callbacks with bounded concurrency. Each claim is a lease;
// the outcome is recorded (fenced by the claim token) through group commit, so many finished
// deliveries share one transaction. A slot is held while the request is out (for SLOW_MS at most),
// not while its record waits for its batch; an endpoint's slow requests are capped, and one that
// keeps failing is not sent to until its circuit's cooldown ends (endpoints.ts): a callback those
// rules stop is given back unsent, due when the pause ends, its attempts unchanged.
import { BACKGROUND } from "../db/group-commit.ts";
import { op } from "../db/script.ts";
import type { Logger } from "../log/index.ts";
import type { DueCallback, NextStep } from "../store/callbacks/index.ts";
import type { RecordAttempt } from "../store/batches/index.ts";
import type { Answering, Store } from "../store/index.ts";
import type { AttemptResult } from "./attempt.ts";
import type { BackoffOptions } from "./backoff.ts";
import { createEndpointGuard, endpointOf, SLOW_MS, type Endpoint } from "./endpoints.ts";
import { answeredForGood, nextStep } from "./next-step.ts";
import { createPauseRecorder } from "./pauses.ts";

export interface DeliveryJobDeps {
  store: Store<Answering, "promise">;
  clock: () => number;
  log: Logger;
  attempt: (callback: DueCallback) => Promise<AttemptResult>;
  backoff: BackoffOptions;
  /** Deliveries in flight at most; read on every claim, so it can follow the service's load. */
  concurrency: () => number;
  leaseMs: number;
  /** Called when a request ends or turns slow (a slot is free), so the loop can claim more. */
  onSettled: () => void;
  /** Each attempt's result (delivered, retry, dead, or lease_lost) and how long it took (ms). */
  onAttempt: (result: string, durationMs: number) => void;
  /** PostgreSQL's: records the attempts of a turn together (backend/pg-worker.ts); without it each is a write of its own. */
  recordAttempt?: RecordAttempt;
}

/** Slow requests one endpoint may have out: this share of the slots, and at least MIN_SLOW_PER_ENDPOINT. */
const ENDPOINT_SHARE = 0.25;
const MIN_SLOW_PER_ENDPOINT = 4;
/**
 * Slow requests out at most, all endpoints together: no claims while there are more. Bun's fetch
 * sends at most 256 requests at once (BUN_CONFIG_MAX_HTTP_REQUESTS) and queues the rest, so the
 * slots and the slow requests together stay below that.
 */
const MAX_SLOW = 128;
/** Due callbacks claimed at once, queued until slots are free. */
const CLAIM_BATCH = 512;
/**
 * A queued callback not started within this long after its claim is given back: its lease (the
 * attempt timeout plus a 5 s margin, worker/index.ts) must outlive the request it starts.
 */
const MAX_QUEUED_MS = 2_000;

interface Queued {
  callback: DueCallback;
  token: string;
  claimedAt: number;
}
type PutBack = { callback: DueCallback; token: string; retryAt: number };

/** A retry is handled (warn); a dead callback needs an operator to look at its receiver (error). */
const ATTEMPT_LOG_LEVEL = { delivered: "info", retry: "warn", dead: "error" } as const satisfies Record<NextStep["kind"], "info" | "warn" | "error">;

export function createDeliveryJob(deps: DeliveryJobDeps) {
  /** Every delivery until its record is written (what stop waits for). */
  const inFlight = new Map<string, Promise<void>>();
  /** Claimed and waiting for a slot, oldest first; and those to give back at the next fill. */
  const queued: Queued[] = [];
  const givingBack: PutBack[] = [];
  let claiming = false;
  /** Requests out now, and the slow ones among them: the others hold the slots. */
  let sending = 0;
  let slow = 0;
  const pauses = createPauseRecorder(deps);
  const endpoints = createEndpointGuard({
    maxSlow: () => Math.max(MIN_SLOW_PER_ENDPOINT, Math.floor(deps.concurrency() * ENDPOINT_SHARE)),
    scale: deps.backoff.scale,
    onChange: (change) => {
      const line = { vendor_id: change.endpoint.vendorId, endpoint: change.endpoint.target };
      if (change.pausedUntil === null) deps.log.info("callback_endpoint_resumed", line);
      else
        deps.log.warn("callback_endpoint_paused", {
          ...line,
          failures: change.failures,
          last_error: change.lastError,
          paused_until: new Date(change.pausedUntil).toISOString(),
        });
      pauses.note(change);
    },
  });
  const recordAttempt: RecordAttempt =
    deps.recordAttempt ??
    ((callback, token, attempt, next, now) => deps.store.write((t) => op(t.callbacks.recordAttempt(callback, token, attempt, next, now)), BACKGROUND));

  /** Sends the callback (its endpoint admitted it), frees its slot once slow or done, tells the endpoint's guard how it went. */
  async function send(callback: DueCallback, endpoint: Endpoint): Promise<AttemptResult> {
    sending++;
    let isSlow = false;
    const slowTimer = setTimeout(() => {
      isSlow = true;
      slow++;
      endpoints.slow(endpoint, deps.clock());
      pump();
      deps.onSettled();
    }, SLOW_MS);
    let answered = false;
    let error: string | null = "The attempt failed";
    try {
      const result = await deps.attempt(callback);
      answered = answeredForGood(result.statusCode);
      error = result.error;
      return result;
    } finally {
      clearTimeout(slowTimer);
      endpoints.settled(endpoint, { callbackId: callback.id, answered, slow: isSlow, error }, deps.clock());
      sending--;
      if (isSlow) slow--;
      pump();
      deps.onSettled();
    }
  }

  /**
   * The attempt's line is flushed before its record is committed: the request went out whatever
   * happens next, and a kill -9 must not leave a recorded attempt without its line. `outcome` is
   * what is being recorded; if the lease was lost meanwhile, the record is not made and a second
   * line says so.
   */
  async function deliver(callback: DueCallback, token: string, attempt: Promise<AttemptResult>): Promise<void> {
    const result = await attempt;
    const attemptNo = callback.attemptCount + 1;
    const now = deps.clock();
    const step = nextStep(result, attemptNo, deps.backoff, now);
    const line = { callback_id: callback.id, lead_id: callback.leadId, attempt: attemptNo };
    deps.log[ATTEMPT_LOG_LEVEL[step.kind]]("callback_attempt", {
      ...line,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
      error: result.error,
      outcome: step.kind,
    });
    await deps.log.flush();
    const kept = await recordAttempt(callback, token, result, step, now);
    deps.onAttempt(kept ? step.kind : "lease_lost", result.durationMs);
    if (!kept) deps.log.info("callback_attempt_not_recorded", { ...line, reason: "lease_lost" });
  }

  /** Callbacks given back unsent (their endpoint paused or at its cap, or queued too long), in one write. */
  async function putBack(items: PutBack[]): Promise<void> {
    if (items.length === 0) return;
    await deps.store.write(function* (t) {
      for (const { callback, token, retryAt } of items) yield* op(t.callbacks.putBack(callback.leadId, token, retryAt));
    }, BACKGROUND);
  }

  function track(callback: DueCallback, token: string, delivery: Promise<void>): void {
    // Keyed by id and token: a delivery whose lease expired may still be running when its
    // callback is claimed again, and each must account for itself.
    const key = `${callback.id}:${token}`;
    const done = delivery
      .catch((error) => deps.log.error("callback_attempt_failed", { callback_id: callback.id, error: String(error) }))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, done);
  }

  /** Starts queued callbacks while slots are free (each as its endpoint's guard says); how many it took. */
  function pump(): number {
    const concurrency = deps.concurrency();
    let taken = 0;
    while (queued.length > 0 && sending - slow < concurrency && slow < MAX_SLOW) {
      const { callback, token, claimedAt } = queued.shift()!;
      taken++;
      const now = deps.clock();
      if (now - claimedAt > MAX_QUEUED_MS) {
        givingBack.push({ callback, token, retryAt: now });
        continue;
      }
      const endpoint = endpointOf(callback.vendorId, callback.url);
      const admission = endpoints.admit(endpoint, now);
      // Not sent, so not an attempt: postponed to the end of the pause (docs/contract.md §8).
      if (admission.kind === "overCap") givingBack.push({ callback, token, retryAt: admission.retryAt });
      else if (admission.kind === "open") givingBack.push({ callback, token, retryAt: admission.until });
      else track(callback, token, deliver(callback, token, send(callback, endpoint)));
    }
    return taken;
  }

  return {
    /**
     * Starts queued callbacks on the free slots and, once fewer than half a claim's worth are
     * queued, claims up to CLAIM_BATCH more; returns how many it started or claimed. A claim is a
     * write, answered after its batch's WAL fsync (60-90 ms under bench:steady's load): claiming
     * only what the free slots could take, one claim at a time, held deliveries to about 500/s
     * while requests took 3 ms. Claiming ahead, the queue keeps the slots busy while the next
     * claim is under way, and a request's end starts the next queued one at once.
     */
    async fill(): Promise<number> {
      await putBack(givingBack.splice(0));
      let done = pump();
      if (claiming || queued.length >= CLAIM_BATCH / 2 || slow >= MAX_SLOW) return done;
      claiming = true;
      try {
        const token = crypto.randomUUID();
        const claimedAt = deps.clock();
        const due = await deps.store.write((t) => op(t.callbacks.claimDue(claimedAt, CLAIM_BATCH - queued.length, deps.leaseMs, token)), BACKGROUND);
        for (const callback of due) queued.push({ callback, token, claimedAt });
        done += due.length;
      } finally {
        claiming = false;
      }
      pump();
      return done;
    },
    inFlight: () => inFlight.size,
    /**
     * Waits for in-flight deliveries up to `timeoutMs`. Those still running keep their leases: each
     * started at its claim and its request may still reach the receiver, so giving the lease back
     * let another instance send it again at once. Sent again (same webhook-id) once the lease
     * expires, a callback timeout plus a margin after the claim, after a restart or elsewhere.
     */
    // Queued callbacks not yet started are given back, due now (else they would wait for their leases).
    async stop(timeoutMs: number): Promise<void> {
      const unsent = [...givingBack.splice(0), ...queued.splice(0).map(({ callback, token }) => ({ callback, token, retryAt: deps.clock() }))];
      endpoints.forgetAll(deps.clock());
      await Promise.race([Promise.all([...inFlight.values(), putBack(unsent).catch(() => {}), pauses.settled()]), Bun.sleep(timeoutMs)]);
    },
  };
}
