// The policy's final rules (docs/contract.md §10) for a due lead: its stored fields made the facts
// the rules read, judged in its vendor's and campaign's scope, `received.*` at its intake.
import { leadCreatedAt } from "../db/schema.ts";
import { type CompiledPolicy, factsOfLead } from "../policy/index.ts";
import type { DueLead, StoredForRules } from "../store/leads/index.ts";
import type { CertificateFacts } from "../certificates/index.ts";
import type { CheckFacts } from "../checks/verdict.ts";

/**
 * Every failing final rule's reason, in document order. `final.certificate`: the certificate.* facts,
 * when TrustedForm judged the lead; `final.checks`: the check.<name>.* facts of the checks that answered it.
 */
export function failingFinalRulesOf(
  policy: CompiledPolicy,
  lead: DueLead,
  stored: StoredForRules,
  final: { certificate?: CertificateFacts; checks?: Record<string, CheckFacts> } = {},
): readonly string[] {
  const scope = { vendor: stored.vendor, campaign: lead.vendorCampaignName };
  return policy.failingFinalRules(scope, factsOfLead(stored.vendor, stored.fields, final), leadCreatedAt(lead.id));
}
