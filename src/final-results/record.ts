// Deciding a lead as transaction scripts over the tables: the checks as they stand now, and the
// decision written with its callback and phone claim, only by the holder of the lead's lease.
import { callbackPayload } from "../callbacks/payload.ts";
import { op, type Script } from "../db/script.ts";
import type { Tables } from "../store/index.ts";
import type { DueLead } from "../store/leads/index.ts";
import { decideFinalResult, type FinalResult, type PostPostingChecks } from "./decide.ts";

export type CertificateCheck = PostPostingChecks["certificate"];

export type ChecksNow = Omit<PostPostingChecks, "certificate">;

/** Suppression and operator decision as they stand now; null when the lead is gone. */
export function* checksNow(t: Tables, lead: DueLead): Script<ChecksNow | null> {
  const operator = yield* op(t.leads.operatorDecisionOf(lead.id));
  if (!operator) return null;
  const suppressedNow = yield* op(t.suppressions.isListed(lead.phoneE164));
  return { suppressedNow, operatorDecision: operator.decision ? { decision: operator.decision, reason: operator.reason } : null };
}

/**
 * Writes the decision if `token` still holds the lead; false (and nothing written) if the lease
 * was lost. The lead, its callback and its phone claim change together.
 */
export function* recordDecision(t: Tables, lead: DueLead, token: string, result: FinalResult, now: number, payload: string): Script<boolean> {
  const reason = result.status === "rejected" ? result.reason : null;
  if (!(yield* op(t.leads.finish(lead.id, token, result.status, reason, now)))) return false;
  yield* op(t.callbacks.release(lead.id, payload, now));
  // A rejected lead does not block its number; an accepted one's claim stands (phone-claims/index.ts).
  if (result.status === "rejected") yield* op(t.phoneClaims.drop(lead.phoneE164, lead.id));
  return true;
}

/** The final result by the checks as they stand now (suppression, operator decision), or null if the lead is gone. */
export function* decideNow(t: Tables, lead: DueLead, certificate: CertificateCheck): Script<FinalResult | null> {
  const checks = yield* checksNow(t, lead);
  return checks && decideFinalResult({ ...checks, certificate });
}

/**
 * Runs inside the transaction: records `result` if the checks still give it and `token` still
 * holds the lead. A suppression or an operator decision that landed since `result` was logged
 * makes it "changed", and nothing is written.
 */
export function* recordIfStill(
  t: Tables,
  lead: DueLead,
  token: string,
  certificate: CertificateCheck,
  result: FinalResult,
  now: number,
): Script<"recorded" | "changed" | "leaseLost"> {
  const current = yield* decideNow(t, lead, certificate);
  if (current === null) return "leaseLost";
  if (!Bun.deepEquals(current, result)) return "changed";
  return (yield* recordDecision(t, lead, token, result, now, callbackPayload(lead, result, now))) ? "recorded" : "leaseLost";
}
