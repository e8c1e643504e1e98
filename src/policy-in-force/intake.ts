// Intake's questions (intake/policy-port.ts) answered by the policy in force at the moment of each
// request. Caps are not enforced yet (`rules import` refuses a document with caps), so a verdict
// that passes is no objection.
import type { IntakePolicy, ValidPing } from "../intake/policy-port.ts";
import type { ValidLead } from "../intake/lead-schema.ts";
import { factsOfLead, type Verdict } from "../policy/index.ts";
import type { PolicyInForce } from "./loader.ts";

export function intakePolicy(inForce: Pick<PolicyInForce, "current">): IntakePolicy {
  return {
    postLead(vendor, lead, at) {
      const policy = inForce.current();
      if (!policy.active) return null;
      return objections(policy.intakeVerdict({ vendor, campaign: lead.vendorCampaignName }, factsOfLead(vendor, lead), at));
    },
    postLeadRefusers(vendor, lead, at) {
      return inForce.current().intakeRefusers({ vendor, campaign: lead.vendorCampaignName }, factsOfLead(vendor, lead), at);
    },
    prePing(vendor, ping, at) {
      const policy = inForce.current();
      if (!policy.active) return null;
      return objections(policy.prePingVerdict({ vendor, campaign: ping.vendorCampaignName }, pingFacts(vendor, ping), at));
    },
  };
}

/** What a prePing knows of its lead: the phone and the campaign. */
export const pingFacts = (vendor: string, ping: ValidPing) => factsOfLead(vendor, ping as Partial<ValidLead>);

export function objections(verdict: Verdict): readonly string[] | null {
  if (verdict.kind === "closed") return [verdict.reason];
  return verdict.kind === "rules" ? verdict.reasons : null;
}
