// The acceptance policy (docs/contract.md §10, docs/policy.md): what intake, the final stage, the
// CLI and the console import. Pure: no database, no clock, no configuration.
export { type CapSlot, type CompiledPolicy, checkPolicyDocument, compilePolicy, inScope, type PolicyCheck, type Scope, type Verdict } from "./compile.ts";
export { type EntryScope, foldCampaign, scopeOf } from "./entries.ts";
export { CHECK_FACTS, factsOfLead, type LeadFacts } from "./fields.ts";
export type { Problem } from "./problems.ts";
export { type Check, OPERATORS, type Policy, PolicyDocument, WEEKDAYS } from "./schema.ts";
export { calendarWindow } from "./zoned.ts";
