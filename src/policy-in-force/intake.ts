// Intake's questions (intake/policy-port.ts) answered by the policy in force at the moment of each
// request: what it refuses, and the caps in scope that the database then counts (store/cap-usage/).
import type { CapToTake, IntakePolicy, PolicyAnswer, ValidPing } from "../intake/policy-port.ts";
import type { ValidLead } from "../intake/lead-schema.ts";
import { factsOfLead, type Verdict } from "../policy/index.ts";
import type { PolicyInForce } from "./loader.ts";

export function intakePolicy(inForce: Pick<PolicyInForce, "current">): IntakePolicy {
  return {
    postLead(vendor, lead, at) {
      const policy = inForce.current();
      if (!policy.active) return null;
      return answerOf(policy.intakeVerdict({ vendor, campaign: lead.vendorCampaignName }, factsOfLead(vendor, lead), at));
    },
    postLeadRefusers(vendor, lead, at) {
      return inForce.current().intakeRefusers({ vendor, campaign: lead.vendorCampaignName }, factsOfLead(vendor, lead), at);
    },
    prePing(vendor, ping, at) {
      const policy = inForce.current();
      if (!policy.active) return null;
      return answerOf(policy.prePingVerdict({ vendor, campaign: ping.vendorCampaignName }, pingFacts(vendor, ping), at));
    },
  };
}

/** What a prePing knows of its lead: the phone and the campaign. */
export const pingFacts = (vendor: string, ping: ValidPing) => factsOfLead(vendor, ping as Partial<ValidLead>);

const NONE: readonly CapToTake[] = Object.freeze([]);

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
