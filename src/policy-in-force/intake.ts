// Intake's questions (intake/policy-port.ts) answered by the policy in force at the moment of each
// request: what it refuses, the caps in scope that the database then counts (store/cap-usage/),
// and the intake checks in scope (checks/intake.ts), compiled once per policy version.
import { checksInScope, stageChecksCompiler } from "../checks/entry.ts";
import type { IntakeChecks } from "../checks/intake.ts";
import type { CapToTake, IntakePolicy, PolicyAnswer, ValidPing } from "../intake/policy-port.ts";
import type { ValidLead } from "../intake/lead-schema.ts";
import { factsOfLead, type Verdict } from "../policy/index.ts";
import type { PolicyInForce } from "./loader.ts";

/** `checks`: runs a lead's intake checks; without it the policy's checks are kept, not run (the CLI's `rules test`). */
export function intakePolicy(inForce: Pick<PolicyInForce, "current">, checks?: IntakeChecks): IntakePolicy {
  const intakeChecksOf = stageChecksCompiler("intake");
  const answer = answers();
  let prepared: object | undefined;
  /**
   * The policy in force; when it changes to one with intake checks, the checks get ready (their
   * thread, checks/thread-host.ts, starts then, at start-up or at the first request after an
   * import), so that start (0.1-0.5 s) does not fall on a lead's timeout.
   */
  const current = () => {
    const policy = inForce.current();
    if (policy !== prepared) {
      prepared = policy;
      if (checks?.prepare && intakeChecksOf(policy).length > 0) checks.prepare();
    }
    return policy;
  };
  current();
  return {
    postLead(vendor, lead, at) {
      const policy = current();
      if (!policy.active) return null;
      return answer(policy.intakeVerdict({ vendor, campaign: lead.vendorCampaignName }, factsOfLead(vendor, lead), at));
    },
    postLeadRefusers(vendor, lead, at) {
      return current().intakeRefusers({ vendor, campaign: lead.vendorCampaignName }, factsOfLead(vendor, lead), at);
    },
    prePing(vendor, ping, at) {
      const policy = current();
      if (!policy.active) return null;
      return answer(policy.prePingVerdict({ vendor, campaign: ping.vendorCampaignName }, pingFacts(vendor, ping), at));
    },
    postLeadChecks(vendor, lead) {
      if (checks === undefined) return null;
      const compiled = intakeChecksOf(current());
      if (compiled.length === 0) return null;
      const inScopeOf = checksInScope(compiled, "intake", vendor, lead.vendorCampaignName);
      return inScopeOf.length === 0 ? null : () => checks.run(inScopeOf, factsOfLead(vendor, lead));
    },
  };
}

/** What a prePing knows of its lead: the phone and the campaign. */
export const pingFacts = (vendor: string, ping: ValidPing) => factsOfLead(vendor, ping as Partial<ValidLead>);

const NONE: readonly CapToTake[] = Object.freeze([]);

/**
 * answerOf, with the answer to a "pass" verdict kept beside it: the policy hands out one such verdict
 * per scope while its caps' slots stay the same (within a second), so its requests share one answer.
 */
function answers(): (verdict: Verdict) => PolicyAnswer | null {
  const kept = new WeakMap<Verdict, PolicyAnswer | null>();
  return (verdict) => {
    if (verdict.kind !== "pass") return answerOf(verdict);
    let answer = kept.get(verdict);
    if (answer === undefined) kept.set(verdict, (answer = answerOf(verdict)));
    return answer;
  };
}

export function answerOf(verdict: Verdict): PolicyAnswer | null {
  if (verdict.kind === "closed") return { kind: "refused", reasons: [verdict.reason] };
  if (verdict.kind === "rules") return { kind: "refused", reasons: verdict.reasons };
  const { caps } = verdict;
  if (caps.length === 0) return null;
  // postLead's verdict names `leads` caps only: its list is taken as it is, not copied.
  if (caps.every((cap) => cap.counts === "leads")) return { kind: "caps", leads: caps, pings: NONE };
  const leads = caps.filter((cap) => cap.counts === "leads");
  const pings = caps.filter((cap) => cap.counts === "pings");
  return { kind: "caps", leads: leads.length > 0 ? leads : NONE, pings: pings.length > 0 ? pings : NONE };
}
