// The in-process worker: two loops, one deciding final results (and doing the housekeeping), one
// delivering callbacks. Apart, because in one loop a pass waited for both jobs, so deliveries were
// claimed at most once per decision batch and fell far behind (bench/README.md, bench:steady).
// With a TrustedForm key, a third verifies certificates during the hold (certificates/job.ts):
// apart too, so a slow TrustedForm never holds a decision back. A fourth asks the policy's final-stage
// checks during the hold (checks/final-job.ts), apart for the same reason; it asks nothing while
// the policy in force has no such check.
import { attemptDelivery } from "../callbacks/attempt.ts";
import { createDeliveryJob } from "../callbacks/job.ts";
import type { Config } from "../config/index.ts";
import { leadCreatedAt } from "../db/schema.ts";
import { createMaintenanceJob } from "./maintenance.ts";
import { createCertificateJob, trustedFormVerifier } from "../certificates/index.ts";
import { finalChecksJob } from "./final-checks.ts";
import { certificateVerifier } from "../final-results/certificate.ts";
import { createFinalResultJob, type FinalResultJobDeps } from "../final-results/job.ts";
import { errorText, type Logger } from "../log/index.ts";
import type { Metrics } from "../metrics/index.ts";
import { isCallbackKind } from "../stats/kinds.ts";
import { NO_TALLY, type Tally } from "../stats/tally.ts";
import type { Answering, Store } from "../store/index.ts";
import type { WorkerBatches } from "../store/batches/index.ts";
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
  /** Set-based decisions (store/batches/) and PostgreSQL's attempt records (backend/pg-worker.ts). */
  batches?: WorkerBatches;
  /** The policy in force, whose final rules the decisions apply (none: no final rules). */
  policy?: FinalResultJobDeps["policy"];
}

export interface Worker {
  wake(): void;
  /**
   * Stops claiming work, ends the hold jobs' requests and waits (within `timeoutMs`) for the running
   * passes, those requests and in-flight deliveries; true if some were still running.
   */
  stop(timeoutMs: number): Promise<boolean>;
}

const DECISION_BATCH = 1024;
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
    onDecided: (status, lead) => {
      // A test lead is counted apart, never in the business's series (docs/contract.md §12 "Test mode").
      if (lead.test) return deps.metrics.testFinalResults.inc({ status });
      deps.metrics.finalResults.inc({ status });
      deps.metrics.intakeToDecision.observe({}, (clock() - leadCreatedAt(lead.id)) / 1000);
      tally.record(lead.vendorId, `decided_${status}`, clock() - leadCreatedAt(lead.id));
    },
    batches: deps.batches?.decisions,
    policy: deps.policy,
    trustedForm: config.trustedFormApiKey === undefined ? null : { onUnreachable: config.trustedFormUnreachable },
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
    onSettled: () => deliveryLoop.wake(),
    onAttempt: (result, durationMs) => {
      deps.metrics.callbackAttempts.inc({ result });
      deps.metrics.callbackAttemptDuration.observe({ result }, durationMs / 1000);
      if (isCallbackKind(result)) tally.record("", result, durationMs);
    },
    recordAttempt: deps.batches?.recordAttempt,
  });
  const maintenance = createMaintenanceJob({ store: deps.store, clock, refusalRetentionMs: config.refusalRetentionMs });
  // A run of failures is reported once for the worker, whichever loops fail (a full disk fails both).
  const failing = new Set<string>();
  const loopOptions = (job: string) => ({
    pollIntervalMs: config.workerPollIntervalMs,
    onError(error: unknown) {
      if (failing.size === 0) log.error("worker_error", { job, error: errorText(error), action: "backing off until a pass succeeds" });
      failing.add(job);
    },
    onRecovered(failures: number) {
      failing.delete(job);
      if (failing.size === 0) log.info("worker_recovered", { job, failed_passes: failures });
    },
  });
  // The jobs of a loop run side by side: one failing (a locked database, say) does not stop the
  // other. A failed job fails the pass, so the loop backs off (and reports a run of failures once).
  const decisionLoop = startLoop(async () => {
    const [decided, purged] = await Promise.allSettled([decisions.runOnce(), maintenance.runOnce()]);
    if (decided.status === "fulfilled" && decided.value > 0) deliveryLoop.wake();
    for (const result of [decided, purged]) if (result.status === "rejected") throw result.reason;
    return [decided, purged].some((result) => result.status === "fulfilled" && result.value > 0);
  }, loopOptions("decisions"));
  // Woken each time a request ends (a slot is free) and when leads were decided (callbacks released).
  const deliveryLoop = startLoop(async () => (await deliveries.fill()) > 0, loopOptions("callbacks"));
  // A pass starts requests and never waits for them (hold/asking.ts): it polls, and is woken only when
  // a full flight gets a free place (leads may be waiting for it), not by every request.
  const certificates = certificateJob(deps, clock, () => certificateLoop?.wake());
  const certificateLoop = certificates && startLoop(async () => (await certificates.runOnce()) > 0, loopOptions("certificates"));
  const checks = deps.policy && finalChecksJob({ ...deps, policy: deps.policy }, clock, () => checkLoop?.wake());
  const checkLoop = checks && startLoop(checks.runOnce, loopOptions("checks"));
  return {
    wake() {
      decisionLoop.wake();
      deliveryLoop.wake();
    },
    async stop(timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      // The hold jobs' requests in flight are ended, and their stores awaited (a pass does not wait for them).
      const asking = Promise.all([certificates?.stop(), checks?.stop()]);
      const cutShort = await Promise.all([
        decisionLoop.stop(timeoutMs),
        deliveryLoop.stop(timeoutMs),
        certificateLoop?.stop(timeoutMs) ?? false,
        checkLoop?.stop(timeoutMs) ?? false,
        Promise.race([asking.then(() => false), Bun.sleep(timeoutMs).then(() => true)]),
      ]);
      await deliveries.stop(Math.max(0, deadline - Date.now()));
      return cutShort.includes(true) || deliveries.inFlight() > 0;
    },
  };
}

/** The TrustedForm verification job, when a key is configured; `onRoom` its loop's wake. */
function certificateJob(deps: WorkerDeps, clock: () => number, onRoom: () => void) {
  const { config, metrics } = deps;
  if (config.trustedFormApiKey === undefined) return null;
  const timeoutMs = config.certificateTimeoutMs;
  return createCertificateJob({
    store: deps.store,
    clock,
    log: deps.log,
    verify: trustedFormVerifier({ apiKey: config.trustedFormApiKey, baseUrl: config.trustedFormBaseUrl, timeoutMs }),
    concurrency: config.trustedFormConcurrency,
    timeoutMs,
    onRoom,
    onAnswer(outcome, seconds) {
      metrics.certificateVerifications.inc({ provider: "trustedform", outcome });
      metrics.certificateVerificationDuration.observe({ provider: "trustedform" }, seconds);
    },
  });
}
