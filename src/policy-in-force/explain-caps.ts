// `rules test` with the caps (docs/policy.md "Managing it"): a lead the policy passes is refused
// by a cap in its scope that is full in the window of the test's time, read from the counters
// (store/cap-usage/), as postLead's read before its write would refuse it. Nothing is stored.
import { fullAmong } from "../intake/caps.ts";
import { validateLead } from "../intake/validate.ts";
import type { CompiledPolicy } from "../policy/index.ts";
import type { Store } from "../store/index.ts";
import { type Explanation, explainLead, type LeadToTest } from "./explain.ts";

export async function explainLeadWithCaps(store: Store, policy: CompiledPolicy, test: LeadToTest): Promise<Explanation> {
  const explanation = explainLead(policy, test);
  if (explanation.status !== 200) return explanation;
  const validation = validateLead(test.body as Record<string, unknown>, { allowPrivateCallbacks: test.allowPrivateCallbacks });
  if (!validation.ok) return explanation;
  const caps = policy.capsInScope({ vendor: test.vendor, campaign: validation.value.vendorCampaignName }, "leads", test.at);
  if (caps.length === 0) return explanation;
  const full = await store.read((t) => fullAmong(t, caps));
  if (full.length === 0) return explanation;
  return { status: 422, refusedBy: full.map((cap) => ({ kind: "cap" as const, name: cap.name, reason: cap.reason })) };
}
