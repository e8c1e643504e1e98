// What a lead's check results decide (docs/contract.md §11): a fail refuses with the service's
// reason; an error is decided by the check's on_error (accept, or reject with "Check unavailable:
// <name>"), or, at the final stage before the decision is due, left to be asked again. Each result
// is also a fact for final rules: check.<name>.outcome and check.<name>.reason (policy/fields.ts).
import { checkUnavailable } from "../contract/texts.ts";
import type { CHECK_FACTS } from "../policy/index.ts";
import type { CheckResult } from "./run.ts";

/** The facts of one check, as LeadFacts.checks holds them: outcome pass, fail or error, and the reason. */
export type CheckFacts = Record<(typeof CHECK_FACTS)[number], string>;

export type ChecksVerdict =
  | {
      kind: "decided";
      /** Each refusal's reason, in the order of the checks (the document's): fails, then errors on_error rejects, as they come. */
      reasons: string[];
      /** The names of the checks that refused, in the same order: the refusal log's and the metrics' entries. */
      refusedBy: string[];
      /** check.<name>.* facts for final rules, by check name. */
      facts: Record<string, CheckFacts>;
    }
  /** Final stage, decision not yet due: these checks erred and are to be asked again. */
  | { kind: "retry"; names: string[] };

/**
 * Decides from `results` (in the document's order). `retryErrors`: at the final stage while the
 * decision is not yet due, any error asks for a retry instead of applying on_error.
 */
export function judgeChecks(results: readonly CheckResult[], options: { retryErrors: boolean } = { retryErrors: false }): ChecksVerdict {
  if (options.retryErrors) {
    const erred = results.filter((result) => result.answer.outcome === "error").map((result) => result.check.name);
    if (erred.length > 0) return { kind: "retry", names: erred };
  }
  const reasons: string[] = [];
  const refusedBy: string[] = [];
  const facts: Record<string, CheckFacts> = {};
  for (const { check, answer } of results) {
    if (answer.outcome === "error") {
      const reason = checkUnavailable(check.name);
      facts[check.name] = { outcome: "error", reason };
      if (check.onError === "reject") {
        reasons.push(reason);
        refusedBy.push(check.name);
      }
      continue;
    }
    facts[check.name] = { outcome: answer.outcome, reason: answer.reason };
    if (answer.outcome === "fail") {
      reasons.push(answer.reason);
      refusedBy.push(check.name);
    }
  }
  return { kind: "decided", reasons, refusedBy, facts };
}
