// A final-result job for the set-based decision tests (SQLite's and PostgreSQL's): a batch of ten,
// certificates off, the time fixed at `decidedAt`, `policy` in force (none: no final rules); `decided` collects each lead's final status.
import { createFinalResultJob, type DecisionBatches } from "../../src/final-results/job.ts";
import { createLogger } from "../../src/log/index.ts";
import type { CompiledPolicy } from "../../src/policy/index.ts";
import type { Answering, Store } from "../../src/store/index.ts";

export function decisionJob(
  store: Store<Answering, "promise">,
  batches: DecisionBatches,
  options: { decidedAt: number; leaseMs: number; policy?: CompiledPolicy },
) {
  const decided: string[] = [];
  const job = createFinalResultJob({
    store,
    clock: () => options.decidedAt,
    log: createLogger("silent"),
    verifyCertificate: null,
    batchSize: 10,
    leaseMs: options.leaseMs,
    onDecided: (status) => decided.push(status),
    batches,
    policy: options.policy && { current: () => options.policy!, version: () => 1 },
  });
  return { job, decided };
}
