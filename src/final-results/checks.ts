// The final stage beyond §7 (docs/contract.md §10, §11) for a lead no §7 check or certificate
// rejected: its final-stage checks judged by the answers stored during the hold (checks/final-job.ts)
// — a fail rejects with the service's reason; an error, or no answer by now, is the check's on_error
// (accept, or reject with "Check unavailable: <name>") — then the final rules, reading the
// certificate.* facts and the check.<name>.* facts of every check that answered the lead, at intake
// (leads.check_answers) and at the final stage. Pure but for the reads of finalStageNow.
import { checksInScope, type CompiledCheck, stageChecksCompiler } from "../checks/entry.ts";
import { CHECK_KIND, intakeAnswersOf, resultOfFinding } from "../checks/stored.ts";
import { type CheckFacts, judgeChecks } from "../checks/verdict.ts";
import type { CertificateFacts } from "../certificates/index.ts";
import { op, type Script } from "../db/script.ts";
import type { CompiledPolicy } from "../policy/index.ts";
import type { Finding } from "../store/findings/index.ts";
import type { Tables } from "../store/index.ts";
import type { DueLead, StoredForRules } from "../store/leads/index.ts";
import type { PostPostingChecks } from "./decide.ts";
import { failingFinalRulesOf } from "./final-rules.ts";

/** The final-stage checks of a policy, compiled once per policy in force. */
export const finalChecksOf: (policy: CompiledPolicy) => readonly CompiledCheck[] = stageChecksCompiler("final");

/** Whether a policy judges anything at the final stage (final rules, or final-stage checks): only then are a lead's fields read. */
export const hasFinalStage = (policy: CompiledPolicy): boolean => policy.hasFinalRules || finalChecksOf(policy).length > 0;

/** Whether a policy's decision reads the findings of kind "check" (it has final-stage checks). */
export const readsCheckFindings = (policy: CompiledPolicy | null): boolean => policy !== null && finalChecksOf(policy).length > 0;

/** The refusals of the lead's final-stage checks in scope, in the document's order, and the check.* facts of all its checks. */
export function judgeFinalChecks(
  policy: CompiledPolicy,
  stored: StoredForRules,
  leadId: string,
  findings: readonly Finding[],
  intakeAnswers: string | null,
): { reasons: string[]; facts: Record<string, CheckFacts> } {
  const inScope = checksInScope(finalChecksOf(policy), "final", stored.vendor, stored.fields.vendorCampaignName);
  const results = inScope.map((check) =>
    resultOfFinding(
      check,
      findings.find((finding) => finding.leadId === leadId && finding.kind === CHECK_KIND && finding.name === check.name),
    ),
  );
  // Without retryErrors every verdict is decided: the decision is due, on_error applies now.
  const verdict = judgeChecks(results);
  if (verdict.kind !== "decided") throw new Error("a due lead's check asked for a retry");
  return { reasons: verdict.reasons, facts: { ...intakeAnswersOf(intakeAnswers), ...verdict.facts } };
}

/** The final stage's verdict on a lead (its checks' refusals, its failing final rules), by what was read. */
export function finalStageVerdict(
  policy: CompiledPolicy,
  lead: DueLead,
  stored: StoredForRules,
  findings: readonly Finding[],
  intakeAnswers: string | null,
  certificate?: CertificateFacts,
): Pick<PostPostingChecks, "failingChecks" | "failingFinalRules"> {
  const checks = judgeFinalChecks(policy, stored, lead.id, findings, intakeAnswers);
  const failingFinalRules = policy.hasFinalRules ? failingFinalRulesOf(policy, lead, stored, { certificate, checks: checks.facts }) : [];
  return { failingChecks: checks.reasons, failingFinalRules };
}

/** finalStageVerdict with its reads, inside a transaction (the per-lead path). */
export function* finalStageNow(
  t: Tables,
  policy: CompiledPolicy,
  lead: DueLead,
  stored: StoredForRules,
  certificate?: CertificateFacts,
): Script<Pick<PostPostingChecks, "failingChecks" | "failingFinalRules">> {
  const findings = readsCheckFindings(policy) ? yield* op(t.findings.of([lead.id], CHECK_KIND)) : [];
  const intake = policy.hasFinalRules ? ((yield* op(t.findings.intakeAnswersOf([lead.id])))[0]?.checkAnswers ?? null) : null;
  return finalStageVerdict(policy, lead, stored, findings, intake, certificate);
}
