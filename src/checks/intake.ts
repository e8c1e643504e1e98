// Intake's checks (docs/contract.md §11, docs/checks.md "At intake"): a postLead's checks in scope
// run at once through the runner (run.ts: cache, guard, signed request, each within its own
// timeout), judged (verdict.ts), each result told to `observe` (metrics, logs). What intake's
// policy port asks for (intake/policy-port.ts postLeadChecks), built by policy-in-force/intake.ts.
import type { ChecksAnswer, RefusedBy } from "../intake/policy-port.ts";
import type { LeadFacts } from "../policy/index.ts";
import type { CompiledCheck } from "./entry.ts";
import type { CheckResult, CheckRunner } from "./run.ts";
import { judgeChecks } from "./verdict.ts";

export interface IntakeChecks {
  /** Runs `checks` (intake's, in scope, in the document's order) for a lead. */
  run(checks: readonly CompiledCheck[], facts: LeadFacts): Promise<ChecksAnswer>;
  /** The policy in force has intake checks: start what asking them needs (their thread) before a lead waits on it. */
  prepare?(): void;
}

export function intakeChecks(runner: Pick<CheckRunner, "run"> & { prepare?(): void }, observe: (result: CheckResult) => void = () => {}): IntakeChecks {
  return {
    prepare: runner.prepare,
    async run(checks, facts) {
      const results = await runner.run(checks, facts);
      for (const result of results) observe(result);
      const verdict = judgeChecks(results);
      // Without retryErrors (the final stage's) every verdict is decided: on_error applies at once.
      if (verdict.kind !== "decided") throw new Error("an intake check asked for a retry");
      if (verdict.reasons.length === 0) return { kind: "passed", answers: verdict.facts };
      const refusedBy: RefusedBy[] = verdict.refusedBy.map((name) => ({ kind: "check", name }));
      return { kind: "refused", reasons: verdict.reasons, refusedBy };
    },
  };
}
