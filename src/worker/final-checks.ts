// The worker's final-stage checks job (checks/final-job.ts), wired: its runner is intake's kind
// (guard, cache, address rules, timeouts: checks/run.ts) but its own instance, signed with the
// database's checks signing secret (read once, at the first pass: the service stored it at start),
// each result counted in the check metrics as intake's are, request errors and pauses logged.
import { createCheckRunner, createFinalChecksJob, type CheckRunner } from "../checks/index.ts";
import { ensureChecksSecret } from "../checks/secret.ts";
import type { Config } from "../config/index.ts";
import type { Logger } from "../log/index.ts";
import { countCheckResult, type Metrics } from "../metrics/index.ts";
import type { CompiledPolicy } from "../policy/index.ts";
import type { Answering, Store } from "../store/index.ts";

/** Requests in flight at once per check: the guard caps a slow service's share further (checks/guard.ts). */
const CONCURRENCY = 32;

export interface FinalChecksWiring {
  config: Config;
  store: Store<Answering, "promise">;
  log: Logger;
  metrics: Metrics;
  policy: { current(): CompiledPolicy };
}

/** `onRoom`: a check's full flight got a free place (hold/asking.ts), the checks loop's wake. */
export function finalChecksJob(deps: FinalChecksWiring, clock: () => number, onRoom: () => void) {
  const { log, metrics } = deps;
  let secret: string | undefined;
  const runner: CheckRunner = createCheckRunner({
    secret: () => secret!,
    clock,
    allowPrivate: deps.config.allowPrivateCallbacks,
    // The guard names a check's endpoint "check:<name>" (checks/guard.ts).
    onPause: ({ endpoint, pausedUntil, failures, lastError }) => {
      const line = { check: endpoint.vendorId.replace(/^check:/, ""), target: endpoint.target, stage: "final" };
      if (pausedUntil === null) log.info("check_resumed", line);
      else log.warn("check_paused", { ...line, failures, until: new Date(pausedUntil).toISOString(), error: lastError });
    },
  });
  const job = createFinalChecksJob({
    store: deps.store,
    clock,
    log,
    runner,
    policy: deps.policy,
    concurrency: CONCURRENCY,
    onRoom,
    onResult: (result) => countCheckResult(metrics, result),
  });
  return {
    /** One pass; true when it started asking about some lead (so the loop goes on at once). */
    async runOnce(): Promise<boolean> {
      secret ??= await ensureChecksSecret(deps.store, clock);
      return (await job.runOnce()) > 0;
    },
    /** Ends the requests in flight; resolves once they have. */
    stop(): Promise<void> {
      const ended = job.stop();
      runner.forget(); // Closes the client: its requests end now.
      return ended;
    },
  };
}
