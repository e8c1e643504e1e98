// Deciding a lead as transaction scripts over the tables: the checks as they stand now, and the
// decision written with its callback and phone claim, only by the holder of the lead's lease.
import { callbackPayload } from "../callbacks/payload.ts";
import { storedReasons } from "../contract/rejection-reasons.ts";
import { op, type Script } from "../db/script.ts";
import type { CompiledPolicy } from "../policy/index.ts";
import type { Finding, FindingAtDecision } from "../store/findings/index.ts";
import type { Tables } from "../store/index.ts";
import type { DueLead } from "../store/leads/index.ts";
import { evidenceOfFinding, trustedFormFindingOf } from "../certificates/index.ts";
import { certificateCheckMatters, decideFinalResult, type FinalResult, type PostPostingChecks } from "./decide.ts";
import { finalStageNow, hasFinalStage } from "./checks.ts";
import { type CertificateJudgement, type CertificateSource, findingAtDecision, judgeTrustedForm } from "./trustedform.ts";

export type { CertificateCheck } from "./decide.ts";

/** No certificate check applies (verification off, no URL). */
export const NO_CERTIFICATE: CertificateSource = { kind: "checked", check: null };

/**
 * Suppression and operator decision as they stand now and, when no §7 check decided the lead
 * already, its certificate's verdict (TrustedForm's evidence read now), the refusals of the
 * final-stage checks of `policy` (their answers read now) and the final rules it fails; null when
 * the lead is gone.
 */
export function* checksNow(t: Tables, lead: DueLead, source: CertificateSource, policy: CompiledPolicy | null = null): Script<PostPostingChecks | null> {
  const operator = yield* op(t.leads.operatorDecisionOf(lead.id));
  if (!operator) return null;
  const suppressedNow = yield* op(t.suppressions.isListed(lead.phoneE164));
  const operatorDecision = operator.decision ? { decision: operator.decision, reason: operator.reason } : null;
  const checks: PostPostingChecks = { suppressedNow, operatorDecision, certificate: null };
  if (!certificateCheckMatters(checks)) return checks;
  const findings = source.kind === "trustedform" ? yield* op(t.findings.of([lead.id], "certificate")) : [];
  const judged = certificateJudgement(source, findings, lead.id);
  checks.certificate = judged.check;
  if (judged.acceptedUnverified) checks.acceptedUnverified = true;
  if (policy && hasFinalStage(policy)) {
    const stored = yield* op(t.leads.storedForRules(lead.id));
    if (stored) Object.assign(checks, yield* finalStageNow(t, policy, lead, stored, judged.facts));
  }
  return checks;
}

/** The certificate's verdict and facts by `source`, TrustedForm's evidence taken from `findings`. */
export function certificateJudgement(source: CertificateSource, findings: readonly Finding[], leadId: string): CertificateJudgement {
  if (source.kind === "checked") return { check: source.check };
  const finding = trustedFormFindingOf(findings, leadId);
  return judgeTrustedForm(finding && evidenceOfFinding(finding), source);
}

/**
 * Writes the decision if `token` still holds the lead; false (and nothing written) if the lease
 * was lost. The lead, its callback, its phone claim and its `finding` at decision (kept only if the
 * lead has none of its key) change together.
 */
export function* recordDecision(
  t: Tables,
  lead: DueLead,
  token: string,
  result: FinalResult,
  now: number,
  payload: string,
  finding: FindingAtDecision | null = null,
): Script<boolean> {
  const reason = result.status === "rejected" ? storedReasons(result.reasons) : null;
  if (!(yield* op(t.leads.finish(lead.id, token, result.status, reason, now)))) return false;
  yield* op(t.callbacks.release(lead.id, payload, now));
  if (finding) {
    const { outcome, reason: said, ...key } = finding;
    yield* op(t.findings.settleUnasked(key, lead.id, { outcome, reason: said, detail: null, raw: null, checkedAt: now, nextAt: now }));
  }
  // A rejected lead does not block its number; an accepted one's claim stands (phone-claims/index.ts).
  if (result.status === "rejected") yield* op(t.phoneClaims.drop(lead.phoneE164, lead.id));
  return true;
}

/** The final result by the checks as they stand now (suppression, operator decision, certificate, final checks and rules of `policy`), or null if the lead is gone. */
export function* decideNow(t: Tables, lead: DueLead, source: CertificateSource, policy: CompiledPolicy | null = null): Script<FinalResult | null> {
  const checks = yield* checksNow(t, lead, source, policy);
  return checks && decideFinalResult(checks);
}

/**
 * Runs inside the transaction: records `result` if the checks still give it and `token` still
 * holds the lead. A suppression or an operator decision that landed since `result` was logged
 * makes it "changed", and nothing is written. `policy` is the one `result` was decided by.
 */
export function* recordIfStill(
  t: Tables,
  lead: DueLead,
  token: string,
  source: CertificateSource,
  result: FinalResult,
  now: number,
  policy: CompiledPolicy | null = null,
): Script<"recorded" | "changed" | "leaseLost"> {
  const current = yield* decideNow(t, lead, source, policy);
  if (current === null) return "leaseLost";
  if (!Bun.deepEquals(current, result)) return "changed";
  const payload = callbackPayload(lead, result, now);
  return (yield* recordDecision(t, lead, token, result, now, payload, findingAtDecision(source))) ? "recorded" : "leaseLost";
}
