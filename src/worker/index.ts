// The in-process worker: one loop, two jobs (decide final results, deliver callbacks), plus
// housekeeping.
import { attemptDelivery } from "../callbacks/attempt.ts";
import { createDeliveryJob } from "../callbacks/job.ts";
import type { Config } from "../config/index.ts";
import { leadCreatedAt } from "../db/schema.ts";
import { createMaintenanceJob } from "./maintenance.ts";
import { certificateVerifier } from "../final-results/certificate.ts";
import { createFinalResultJob } from "../final-results/job.ts";
import { errorText, type Logger } from "../log/index.ts";
import type { Metrics } from "../metrics/index.ts";
import { isCallbackKind } from "../stats/kinds.ts";
import { NO_TALLY, type Tally } from "../stats/tally.ts";
import type { Answering, Store } from "../store/index.ts";
import type { WorkerBatches } from "../backend/pg-worker.ts";
import { startLoop } from "./loop.ts";

export interface WorkerDeps {
  config: Config;
  /** The service's store (on SQLite its writes go through the process's one group committer). */
  store: Store<Answering, "promise">;
  log: Logger;
  metrics: Metrics;
  /** The console's counts; none are kept without it. */
  tally?: Tally;
  /** HTTP requests in flight now (the foreground the worker yields to). */
  foregroundLoad: () => number;
  clock?: () => number;
  /** PostgreSQL's set-based decisions and attempt records (backend/pg-worker.ts). */
  batches?: WorkerBatches;
}

export interface Worker {
  wake(): void;
  /**
   * Stops claiming work and waits (within `timeoutMs`) for the running pass and in-flight
   * deliveries; true if some were still running.
   */
  stop(timeoutMs: number): Promise<boolean>;
}

const DECISION_BATCH = 256;
// While intake is busy the worker's writes go in waves (see group-commit.ts), so a claim and the
// outcomes before it share one batch; a wave's cost hardly depends on how many rows it carries,
// hence many deliveries in flight per wave rather than a few.
const BUSY_CONCURRENCY = 32;
// A lease outlives the work it covers by a margin, so only a dead worker's claims expire.
const LEASE_MARGIN_MS = 5_000;

export function startWorker(deps: WorkerDeps): Worker {
  const { config, log } = deps;
  const clock = deps.clock ?? Date.now;
  const tally = deps.tally ?? NO_TALLY;
  const decisions = createFinalResultJob({
    store: deps.store,
    clock,
    log,
    verifyCertificate: config.verifyCertificates
      ? certificateVerifier({ allowPrivate: config.allowPrivateCallbacks, timeoutMs: config.certificateTimeoutMs })
      : null,
    batchSize: DECISION_BATCH,
    onDecided: (status, leadId, vendorId) => {
      deps.metrics.finalResults.inc({ status });
      deps.metrics.intakeToDecision.observe({}, (clock() - leadCreatedAt(leadId)) / 1000);
      tally.record(vendorId, `decided_${status}`, clock() - leadCreatedAt(leadId));
    },
    batches: deps.batches?.decisions,
    leaseMs: config.certificateTimeoutMs + LEASE_MARGIN_MS,
  });
  const deliveries = createDeliveryJob({
    store: deps.store,
    clock,
    log,
    attempt: (callback) => attemptDelivery(callback, { allowPrivate: config.allowPrivateCallbacks, timeoutMs: config.callbackTimeoutMs, clock }),
    backoff: { scheduleMs: config.callbackRetrySchedule, scale: config.callbackRetryScale },
    // Intake comes first: while HTTP requests are in flight, deliveries share the event loop
    // with it in waves; when intake is idle they run at full concurrency.
    concurrency: () => (deps.foregroundLoad() > 0 ? Math.min(BUSY_CONCURRENCY, config.callbackConcurrency) : config.callbackConcurrency),
    leaseMs: config.callbackTimeoutMs + LEASE_MARGIN_MS,
    onSettled: () => loop.wake(),
    onAttempt: (result, durationMs) => {
      deps.metrics.callbackAttempts.inc({ result });
      deps.metrics.callbackAttemptDuration.observe({ result }, durationMs / 1000);
      if (isCallbackKind(result)) tally.record("", result, durationMs);
    },
    recordAttempt: deps.batches?.recordAttempt,
  });
  const maintenance = createMaintenanceJob({ store: deps.store, clock });
  // Deliveries wake the loop each time one finishes; deciding is checked on the poll timer (or at
  // once again while it keeps finding due leads), not on every such wake-up: the claim is a write.
  let decideNextAt = 0;
  const decideIfDue = async () => {
    const now = clock();
    if (now < decideNextAt) return 0;
    const decided = await decisions.runOnce();
    decideNextAt = decided > 0 ? 0 : now + config.workerPollIntervalMs;
    return decided;
  };
  // The jobs run side by side: one failing (a locked database, say) does not stop the others. A
  // failed job fails the tick, so the loop backs off (and reports a run of failures once).
  const tick = async () => {
    const results = await Promise.allSettled([decideIfDue(), deliveries.fill(), maintenance.runOnce()]);
    const failed = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
    if (failed) throw failed.reason;
    return results.some((result) => result.status === "fulfilled" && result.value > 0);
  };
  const loop = startLoop(tick, {
    pollIntervalMs: config.workerPollIntervalMs,
    onError: (error) => log.error("worker_error", { error: errorText(error), action: "backing off until a pass succeeds" }),
    onRecovered: (failures) => log.info("worker_recovered", { failed_passes: failures }),
  });
  return {
    wake: () => loop.wake(),
    async stop(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      const tickCutShort = await loop.stop(timeoutMs);
      await deliveries.stop(Math.max(0, deadline - Date.now()));
      return tickCutShort || deliveries.inFlight() > 0;
    },
  };
}
