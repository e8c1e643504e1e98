// The policy's final rules (docs/contract.md §10) for a due lead: its stored fields made the facts
// the rules read, judged in its vendor's and campaign's scope, `received.*` at its intake.
import { leadCreatedAt } from "../db/schema.ts";
import { type CompiledPolicy, factsOfLead } from "../policy/index.ts";
import type { DueLead, StoredForRules } from "../store/leads/index.ts";
import type { CertificateFacts } from "../certificates/index.ts";

/** Every failing final rule's reason, in document order; `certificate`: the certificate.* facts, when TrustedForm judged the lead. */
export function failingFinalRulesOf(policy: CompiledPolicy, lead: DueLead, stored: StoredForRules, certificate?: CertificateFacts): readonly string[] {
  const scope = { vendor: stored.vendor, campaign: lead.vendorCampaignName };
  return policy.failingFinalRules(scope, factsOfLead(stored.vendor, stored.fields, { certificate }), leadCreatedAt(lead.id));
}
