// Properties: any JSON value given as a document is checked without throwing (and what passes
// compiles); random valid documents and random leads never throw, and the compiled evaluation agrees
// with a plain reference reading of docs/policy.md written here without the compiler's code.
import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import type { ValidLead } from "../../src/intake/lead-schema.ts";
import { Value } from "@sinclair/typebox/value";
import { checkPolicyDocument, compilePolicy, type LeadFacts, type Policy, PolicyDocument } from "../../src/policy/index.ts";
import { type Problem, schemaProblems } from "../../src/policy/problems.ts";
import { REFERENCES } from "../../src/policy/schema.ts";

type Rule = NonNullable<Policy["rules"]>[number];
type Condition = Rule["require"];

const LEAD_KEYS = { state: "state", city: "city", email: "email", zip: "zip", campaign: "vendorCampaignName" } as const;
const FIELDS = [
  "state",
  "city",
  "email",
  "zip",
  "vendor",
  "campaign",
  "phone.area_code",
  "extra_data.a",
  "extra_data.b.c",
  "received.hour",
  "received.weekday",
];
const TEXTS = ["", " ", "ny", "NY", " Ny ", "ca", "10", " 7 ", "-3.5", "1e2", ".5", "5.", "1,000", "0x10", "Infinity", "abc", "aXc", "a.c", "mon", "212"];
const PATTERNS = ["^a", "c$", "a.c", "[0-9]+", "^$", "ny|ca", "^(mon|tue)$"];
const VENDORS = ["acme", "Acme", "other"];
const CAMPAIGNS = ["solar", "SOLAR ", "wind"];

const scalar = fc.oneof(fc.constantFrom(...TEXTS), fc.integer({ min: -20, max: 30 }), fc.boolean());
const leaf: fc.Arbitrary<Condition> = fc.oneof(
  fc.record({ field: fc.constantFrom(...FIELDS), op: fc.constantFrom("equals", "not_equals", "starts_with", "contains" as const), value: scalar }),
  fc.record({ field: fc.constantFrom(...FIELDS), op: fc.constantFrom("in", "not_in" as const), value: fc.array(scalar, { minLength: 1, maxLength: 4 }) }),
  fc.record({ field: fc.constantFrom(...FIELDS), op: fc.constantFrom("blank", "not_blank" as const) }),
  fc.record({
    field: fc.constantFrom(...FIELDS),
    op: fc.constantFrom("less_than", "greater_than" as const),
    value: fc.oneof(fc.constantFrom(10, 7, -3.5, 100, 0.5, 5, 212), fc.double({ min: -100, max: 100, noNaN: true })),
  }),
  fc.record({ field: fc.constantFrom(...FIELDS), op: fc.constant("matches" as const), value: fc.constantFrom(...PATTERNS) }),
);
const condition: fc.Arbitrary<Condition> = fc.letrec<{ c: Condition }>((tie) => ({
  c: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    leaf,
    fc.record({ all: fc.array(tie("c"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ any: fc.array(tie("c"), { minLength: 1, maxLength: 3 }) }),
    fc.record({ not: tie("c") }),
  ),
})).c;
const rule = (index: number): fc.Arbitrary<Rule> =>
  fc.record(
    {
      name: fc.constant(`rule-${index}`),
      vendors: fc.subarray(VENDORS, { minLength: 1 }),
      campaigns: fc.subarray(CAMPAIGNS, { minLength: 1 }),
      enabled: fc.boolean(),
      require: condition,
      reason: fc.constantFrom("State {state}, city {city}, score {extra_data.a}", "Refused"),
    },
    { requiredKeys: ["name", "require"] },
  );
const documents = fc
  .integer({ min: 0, max: 6 })
  .chain((count) => fc.tuple(...Array.from({ length: count }, (_, index) => rule(index))))
  .map((rules) => ({ rules }));

const maybe = <T>(arbitrary: fc.Arbitrary<T>) => fc.option(arbitrary, { nil: undefined });
const leads = fc.record({
  vendor: fc.constantFrom(...VENDORS),
  campaign: fc.option(fc.constantFrom(...CAMPAIGNS), { nil: null }),
  lead: fc.record({
    state: maybe(fc.constantFrom(...TEXTS)),
    city: maybe(fc.constantFrom(...TEXTS)),
    email: maybe(fc.constantFrom(...TEXTS)),
    zip: maybe(fc.constantFrom(...TEXTS)),
  }),
  phone: fc.constantFrom("+12125550123", "+13125550123"),
  extraData: fc.option(fc.record({ a: maybe(scalar), b: maybe(fc.record({ c: maybe(scalar) })) }), { nil: undefined }),
  at: fc.integer({ min: Date.UTC(2026, 0, 1), max: Date.UTC(2027, 0, 1) }),
});
type RandomLead = typeof leads extends fc.Arbitrary<infer T> ? T : never;

// The reference reading: values as text, compared folded; a missing field is blank.
function rawValue(field: string, lead: RandomLead): unknown {
  if (field in LEAD_KEYS) return field === "campaign" ? lead.campaign : lead.lead[field as keyof RandomLead["lead"]];
  if (field === "vendor") return lead.vendor;
  if (field === "phone.area_code") return lead.phone.slice(2, 5);
  if (field === "received.hour") return new Date(lead.at).getUTCHours();
  if (field === "received.weekday") return ["sun", "mon", "tue", "wed", "thu", "fri", "sat"][new Date(lead.at).getUTCDay()];
  if (field === "extra_data.a") return lead.extraData?.a;
  return lead.extraData?.b?.c;
}
const text = (value: unknown) => (value === undefined || value === null ? "" : String(value).trim());
const folded = (value: unknown) => text(value).toLowerCase();
function asNumber(value: unknown): number {
  const written = text(value);
  const number = Number(written);
  return written === "" || /^[+-]?0[xob]/i.test(written) || !Number.isFinite(number) ? Number.NaN : number;
}
function reference(c: Condition, lead: RandomLead): boolean {
  if ("all" in c) return c.all.every((item) => reference(item, lead));
  if ("any" in c) return c.any.some((item) => reference(item, lead));
  if ("not" in c) return !reference(c.not, lead);
  const value = rawValue(c.field, lead);
  const v = folded(value);
  switch (c.op) {
    case "equals":
      return v === folded(c.value);
    case "not_equals":
      return v !== folded(c.value);
    case "in":
      return (c.value as unknown[]).some((item) => folded(item) === v);
    case "not_in":
      return !(c.value as unknown[]).some((item) => folded(item) === v);
    case "starts_with":
      return v.startsWith(folded(c.value));
    case "contains":
      return v.includes(folded(c.value));
    case "blank":
      return v === "";
    case "not_blank":
      return v !== "";
    case "less_than":
      return asNumber(value) < (c.value as number);
    case "greater_than":
      return asNumber(value) > (c.value as number);
    case "matches":
      return new RegExp(c.value as string, "i").test(text(value));
  }
}
const render = (reason: string, lead: RandomLead) => reason.replace(/\{([a-z_.]+)\}/g, (_, field: string) => text(rawValue(field, lead)));
const inScope = (rule: Rule, lead: RandomLead) =>
  (rule.vendors === undefined || rule.vendors.includes(lead.vendor)) &&
  (rule.campaigns === undefined || (lead.campaign !== null && rule.campaigns.some((campaign) => folded(campaign) === folded(lead.campaign))));

const factsOf = (lead: RandomLead): LeadFacts => ({
  vendor: lead.vendor,
  lead: { ...lead.lead, phoneE164: lead.phone, vendorCampaignName: lead.campaign } as Partial<ValidLead>,
  extraData: lead.extraData,
});

describe("properties", () => {
  test("any JSON value is checked without throwing; a document that passes compiles", () => {
    const shaped = fc.record(
      { rules: fc.array(fc.record({ name: fc.string(), require: fc.jsonValue() }, { requiredKeys: [] })), caps: fc.jsonValue() },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), shaped, documents as fc.Arbitrary<unknown>), (value) => {
        const result = checkPolicyDocument(value);
        if (result.ok) compilePolicy(result.policy);
        else expect(result.problems.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  test("the path-by-path walk and TypeBox's own check of the schema agree on what is well-formed", () => {
    const mangled = documents.chain((document) =>
      fc
        .constantFrom<(d: Record<string, unknown>) => unknown>(
          (d) => d,
          (d) => ({ ...d, extra: 1 }),
          (d) => JSON.parse(JSON.stringify(d).replace('"op":"in"', '"op":"within"')),
          (d) => JSON.parse(JSON.stringify(d).replace('"name":"rule-0"', '"name":7')),
          (d) => JSON.parse(JSON.stringify(d).replace('"field":', '"feld":')),
          (d) => JSON.parse(JSON.stringify(d).replace('"all":[', '"all":[[],')),
          (d) => JSON.parse(JSON.stringify(d).replace('"enabled":true', '"enabled":"yes"')),
        )
        .map((mangle) => mangle(document)),
    );
    fc.assert(
      fc.property(fc.oneof(mangled, fc.jsonValue()), (value) => {
        const problems: Problem[] = [];
        schemaProblems(PolicyDocument, value, "", problems, REFERENCES);
        expect(problems.length === 0).toBe(Value.Check(PolicyDocument, value));
      }),
      { numRuns: 300 },
    );
  });

  test("compiled evaluation agrees with the reference reading, rule by rule, in document order", () => {
    fc.assert(
      fc.property(documents, fc.array(leads, { minLength: 1, maxLength: 5 }), (document, sample) => {
        expect(checkPolicyDocument(document).ok).toBe(true);
        const policy = compilePolicy(document);
        for (const lead of sample) {
          const expected = document.rules
            .filter((rule) => rule.enabled !== false && inScope(rule, lead) && !reference(rule.require, lead))
            .map((rule) => (rule.reason === undefined ? `Rejected by rule: ${rule.name}` : render(rule.reason, lead)));
          const scope = { vendor: lead.vendor, campaign: lead.campaign };
          expect(policy.failingIntakeRules(scope, factsOf(lead), lead.at)).toEqual(expected);
          const verdict = policy.intakeVerdict(scope, factsOf(lead), lead.at);
          expect(verdict).toEqual(expected.length > 0 ? { kind: "rules", reasons: expected } : { kind: "pass", caps: [] });
        }
      }),
      { numRuns: 300 },
    );
  });
});
