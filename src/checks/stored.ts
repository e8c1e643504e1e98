// A final-stage check's answer as the lead's finding (store/findings/, kind "check", the check's
// name) and back, and the intake checks' answers stored with the lead (leads.check_answers): what
// the decision judges (final-results/checks.ts), final rules read as check.<name>.* facts, and the
// operator sees (checkAnswersView).
import type { Finding, FindingAnswer, FindingKey, CheckScope } from "../store/findings/index.ts";
import type { CompiledCheck } from "./entry.ts";
import type { CheckResult } from "./run.ts";
import type { CheckFacts } from "./verdict.ts";

/** The kind of a final-stage check's finding; its name is the check's. */
export const CHECK_KIND = "check";

export const checkFinding = (name: string): FindingKey => ({ kind: CHECK_KIND, name });

/** What a check's finding keeps in `detail`: where the answer came from, and an error's description (never shown to the vendor). */
interface Detail {
  source: CheckResult["source"];
  error?: string;
}

/** A result as a finding's answer: pass and fail settled with the service's reason; an error open, its description in `detail`. */
export function findingAnswerOf(result: CheckResult, checkedAt: number, nextAt: number): FindingAnswer {
  const { answer, source } = result;
  const detail: Detail = answer.outcome === "error" ? { source, error: answer.error } : { source };
  return { outcome: answer.outcome, reason: answer.outcome === "error" ? null : answer.reason, detail: JSON.stringify(detail), raw: null, checkedAt, nextAt };
}

/** A check's scope as the database filters it (store/findings askableInScope). */
export const scopeForDatabase = (check: Pick<CompiledCheck, "vendors" | "campaigns">): CheckScope => ({
  vendors: check.vendors && [...check.vendors],
  campaigns: check.campaigns && [...check.campaigns],
});

/**
 * The result a check's finding stands for when the lead is decided: its pass or fail, or else (never
 * asked, asked with no answer yet, or an error still) an error, which the check's on_error decides.
 */
export function resultOfFinding(check: CompiledCheck, finding: Finding | undefined): CheckResult {
  const settled = finding && (finding.outcome === "pass" || finding.outcome === "fail");
  const answer = settled
    ? { outcome: finding.outcome as "pass" | "fail", reason: finding.reason ?? "" }
    : { outcome: "error" as const, error: "no answer before the decision was due" };
  return { check, answer, source: "request", durationMs: 0 };
}

/** The intake checks' answers as stored (leads.check_answers); none when absent or unreadable. */
export function intakeAnswersOf(json: string | null | undefined): Record<string, CheckFacts> {
  if (!json) return {};
  try {
    const parsed = JSON.parse(json) as unknown;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, CheckFacts>) : {};
  } catch {
    return {};
  }
}

/** One check's answer for a lead, as the operator sees it (the console's lead page, `leads show`). */
export interface CheckAnswerView {
  check: string;
  stage: "intake" | "final";
  outcome: string;
  reason: string | null;
  /** Final stage: requests made, when last answered, and an error's description. */
  attempts?: number;
  checked_at?: string | null;
  error?: string | null;
}

/** A lead's check answers: its intake answers, then its final-stage findings, each by name. */
export function checkAnswersView(intakeJson: string | null | undefined, findings: readonly Finding[]): CheckAnswerView[] {
  const intake = Object.entries(intakeAnswersOf(intakeJson)).map(
    ([check, facts]): CheckAnswerView => ({ check, stage: "intake", outcome: facts.outcome, reason: facts.reason ?? null }),
  );
  const final = findings
    .filter((finding) => finding.kind === CHECK_KIND)
    .map((finding): CheckAnswerView => {
      const detail = JSON.parse(finding.detail ?? "{}") as Partial<Detail>;
      return {
        check: finding.name,
        stage: "final",
        outcome: finding.outcome,
        reason: finding.reason,
        attempts: finding.attempts,
        checked_at: finding.checkedAt === null ? null : new Date(Number(finding.checkedAt)).toISOString(),
        error: detail.error ?? null,
      };
    });
  return [...intake, ...final];
}
