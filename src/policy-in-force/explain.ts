// `rules test`: what postLead would answer for a lead under a policy, and which entries say so,
// storing nothing. The lead is validated as postLead validates it (400), then judged by the same
// compiled policy and the same verdict intake uses; eligibility (duplicates, suppression) is the
// database's and is not judged here.
import { validateLead } from "../intake/validate.ts";
import { type CompiledPolicy, compilePolicy, factsOfLead, type Policy } from "../policy/index.ts";

export type Explanation =
  | { status: 400; errors: string[] }
  | { status: 422; refusedBy: { kind: "schedule" | "rule" | "cap"; name: string; reason: string }[] }
  | { status: 200 };

export interface LeadToTest {
  body: unknown;
  /** The vendor's name ("" for none: only entries without `vendors` apply). */
  vendor: string;
  at: number;
  allowPrivateCallbacks: boolean;
}

export function explainLead(policy: CompiledPolicy, test: LeadToTest): Explanation {
  const body = test.body;
  if (typeof body !== "object" || body === null || Array.isArray(body)) return { status: 400, errors: ["the lead must be a JSON object, as postLead's body"] };
  const validation = validateLead(body as Record<string, unknown>, { allowPrivateCallbacks: test.allowPrivateCallbacks });
  if (!validation.ok) return { status: 400, errors: validation.errors };
  const lead = validation.value;
  const scope = { vendor: test.vendor, campaign: lead.vendorCampaignName };
  const facts = factsOfLead(test.vendor, lead);
  const verdict = policy.intakeVerdict(scope, facts, test.at);
  if (verdict.kind === "pass") return { status: 200 };
  // Which entries: each judged alone, by the same compiled code, so the names match the verdict.
  const document = policy.document;
  if (verdict.kind === "closed") {
    const schedule = (document.schedules ?? []).find((entry) => alone({ schedules: [entry] }).closedSchedule(scope, test.at) !== null);
    return { status: 422, refusedBy: [{ kind: "schedule", name: schedule?.name ?? "", reason: verdict.reason }] };
  }
  const refusedBy = (document.rules ?? []).flatMap((rule) => {
    const [reason] = alone({ rules: [rule], checks: document.checks }).failingIntakeRules(scope, facts, test.at);
    return reason === undefined ? [] : [{ kind: "rule" as const, name: rule.name, reason }];
  });
  return { status: 422, refusedBy };
}

const alone = (document: Policy): CompiledPolicy => compilePolicy(document);
