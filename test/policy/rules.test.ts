// Rules: every operator and field, nested conditions, reason templates, scoping by vendor and
// campaign, enabled:false, the final stage's facts, prePing's subset, and `matches` on a pattern
// that would make a backtracking engine take exponential time.
import { describe, expect, spyOn, test } from "bun:test";
import type { ValidLead } from "../../src/intake/lead-schema.ts";
import { compilePolicy, factsOfLead, type LeadFacts, type Policy } from "../../src/policy/index.ts";

type Condition = NonNullable<Policy["rules"]>[number]["require"];

const AT = Date.parse("2026-11-23T15:30:00Z"); // Monday 15:30 UTC, 09:30 in Chicago
const SCOPE = { vendor: "acme", campaign: "Solar-Q4" };

const LEAD: Partial<ValidLead> = {
  phoneE164: "+12125550123",
  customerName: "Jane Doe",
  state: "NY",
  city: "New York",
  zip: "10001",
  street: "1 Main St",
  certificateUrl: null,
  dmName: "Jane Doe",
  utility: "ConEd",
  mailingStreet: "1 Main St",
  mailingCity: "New York",
  mailingZip: "10001",
  mailingState: "NY",
  vendorCampaignName: "Solar-Q4",
  email: "jane@example.com",
};
const FACTS: LeadFacts = {
  vendor: "acme",
  lead: LEAD,
  extraData: [
    { source: "web", score: 42, household: { income: "55000.50", members: [{ age: 40 }, { age: 12 }] }, opt_in: true, none: null },
    { channel: " TV " },
  ],
};

/** Whether `require` holds for `facts` (an intake rule named "r", or final when asked). */
function holds(require: Condition, facts: LeadFacts = FACTS, stage: "intake" | "final" = "intake", at = AT): boolean {
  const policy = compilePolicy({ rules: [{ name: "r", stage, require }], checks: [{ name: "scrub", url: "https://scrub.example.com/" }] });
  const reasons = stage === "intake" ? policy.failingIntakeRules(SCOPE, facts, at) : policy.failingFinalRules(SCOPE, facts, at);
  return reasons.length === 0;
}
const leaf = (field: string, op: string, value?: unknown) => ({ field, op, value }) as Condition;

describe("operators", () => {
  test("equals and not_equals ignore case and surrounding spaces; a number or true compares as its text", () => {
    expect(holds(leaf("state", "equals", " ny "))).toBe(true);
    expect(holds(leaf("state", "equals", "CA"))).toBe(false);
    expect(holds(leaf("state", "not_equals", "ca"))).toBe(true);
    expect(holds(leaf("state", "not_equals", "Ny"))).toBe(false);
    expect(holds(leaf("extra_data.score", "equals", 42))).toBe(true);
    expect(holds(leaf("extra_data.opt_in", "equals", true))).toBe(true);
    expect(holds(leaf("extra_data.channel", "equals", "tv"))).toBe(true);
  });

  test("in and not_in", () => {
    expect(holds(leaf("state", "in", ["ca", "NY "]))).toBe(true);
    expect(holds(leaf("state", "in", ["CA", "TX"]))).toBe(false);
    expect(holds(leaf("state", "not_in", ["CA", "TX"]))).toBe(true);
    expect(holds(leaf("state", "not_in", ["ny"]))).toBe(false);
  });

  test("starts_with and contains", () => {
    expect(holds(leaf("email", "starts_with", "JANE@"))).toBe(true);
    expect(holds(leaf("email", "starts_with", "example"))).toBe(false);
    expect(holds(leaf("utility", "contains", "ed"))).toBe(true);
    expect(holds(leaf("utility", "contains", "pge"))).toBe(false);
  });

  test("blank and not_blank: a missing field, null, and an empty or spaces-only text are blank", () => {
    expect(holds(leaf("certificate_url", "blank"))).toBe(true);
    expect(holds(leaf("extra_data.nothing_here", "blank"))).toBe(true);
    expect(holds(leaf("extra_data.none", "blank"))).toBe(true);
    expect(holds(leaf("city", "blank"), { ...FACTS, lead: { ...LEAD, city: "   " } })).toBe(true);
    expect(holds(leaf("city", "not_blank"))).toBe(true);
    expect(holds(leaf("certificate_url", "not_blank"))).toBe(false);
    // A missing field is blank for every operator: equals "" holds, starts_with "x" does not.
    expect(holds(leaf("extra_data.nothing_here", "equals", ""))).toBe(true);
    expect(holds(leaf("extra_data.nothing_here", "starts_with", "x"))).toBe(false);
  });

  test("less_than and greater_than compare numbers; a text that is not a plain number fails both", () => {
    expect(holds(leaf("extra_data.score", "greater_than", 41.5))).toBe(true);
    expect(holds(leaf("extra_data.score", "less_than", 42))).toBe(false);
    expect(holds(leaf("extra_data.household.income", "greater_than", 55000))).toBe(true);
    expect(holds(leaf("extra_data.household.income", "less_than", 1e5))).toBe(true);
    expect(holds(leaf("zip", "less_than", 20000))).toBe(true);
    for (const income of ["55,000", "", "about 5", "0x10", "Infinity"]) {
      const facts = { ...FACTS, extraData: { income } };
      expect([holds(leaf("extra_data.income", "less_than", 1e9), facts), holds(leaf("extra_data.income", "greater_than", -1e9), facts)]).toEqual([
        false,
        false,
      ]);
    }
    expect(holds(leaf("extra_data.missing", "less_than", 10))).toBe(false);
  });

  test("matches searches the trimmed value with RE2, ignoring case", () => {
    expect(holds(leaf("email", "matches", "@EXAMPLE\\.com$"))).toBe(true);
    expect(holds(leaf("email", "matches", "^example"))).toBe(false);
    expect(holds(leaf("extra_data.channel", "matches", "^tv$"))).toBe(true);
    expect(holds(leaf("extra_data.missing", "matches", "^$"))).toBe(true);
  });

  test("matches cannot backtrack: (a+)+$ against 30 a's and a b returns, false", () => {
    const facts = { ...FACTS, extraData: { text: `${"a".repeat(30)}b` } };
    expect(holds(leaf("extra_data.text", "matches", "(a+)+$"), facts)).toBe(false);
    expect(holds(leaf("extra_data.text", "matches", "(a|aa)*c"), facts)).toBe(false);
  });
});

describe("fields", () => {
  test("every lead field by its name reads its stored value", () => {
    const names: Record<string, keyof ValidLead> = {
      phone_number: "phoneE164",
      customer_name: "customerName",
      state: "state",
      city: "city",
      zip: "zip",
      street: "street",
      dm_name: "dmName",
      utility: "utility",
      mailing_street: "mailingStreet",
      mailing_city: "mailingCity",
      mailing_zip: "mailingZip",
      mailing_state: "mailingState",
      vendor_campaign_name: "vendorCampaignName",
      email: "email",
      certificate_url: "certificateUrl",
      call_back_url: "callBackUrl",
    };
    for (const [name, key] of Object.entries(names)) {
      const facts = { ...FACTS, lead: { ...LEAD, [key]: `value of ${key}` } };
      expect([name, holds(leaf(name, "equals", `VALUE OF ${key}`), facts)]).toEqual([name, true]);
    }
  });

  test("phone in E.164, phone.area_code, vendor, campaign", () => {
    expect(holds(leaf("phone_number", "equals", "+12125550123"))).toBe(true);
    expect(holds(leaf("phone.area_code", "in", ["212", "646"]))).toBe(true);
    expect(holds(leaf("phone.area_code", "blank"), { ...FACTS, lead: {} })).toBe(true);
    expect(holds(leaf("vendor", "equals", "ACME"))).toBe(true);
    expect(holds(leaf("campaign", "equals", "solar-q4"))).toBe(true);
  });

  test("extra_data paths: objects, arrays by index, and keys looked up in an array's elements in order", () => {
    expect(holds(leaf("extra_data.source", "equals", "web"))).toBe(true);
    expect(holds(leaf("extra_data.household.members.1.age", "equals", 12))).toBe(true);
    expect(holds(leaf("extra_data.household.members.age", "equals", 40))).toBe(true);
    expect(holds(leaf("extra_data.1.channel", "equals", "tv"))).toBe(true);
    expect(holds(leaf("extra_data.household.members", "contains", '"age":12'))).toBe(true);
    expect(holds(leaf("extra_data.source", "blank"), { vendor: "acme", lead: LEAD })).toBe(true);
    expect(holds(leaf("extra_data.constructor", "blank"), { ...FACTS, extraData: {} })).toBe(true);
  });

  test("received.weekday and received.hour are read in the rule's time zone (UTC by default)", () => {
    const rule = (require: Condition, time_zone?: string) => compilePolicy({ rules: [{ name: "r", time_zone, require }] });
    const passes = (policy: ReturnType<typeof rule>, at: number) => policy.failingIntakeRules(SCOPE, FACTS, at).length === 0;
    const lateSunday = Date.parse("2026-11-23T03:00:00Z"); // Monday 03:00 UTC, Sunday 21:00 in Chicago
    expect(passes(rule(leaf("received.weekday", "equals", "mon")), lateSunday)).toBe(true);
    expect(passes(rule(leaf("received.weekday", "equals", "sun"), "America/Chicago"), lateSunday)).toBe(true);
    expect(passes(rule(leaf("received.hour", "equals", 21), "America/Chicago"), lateSunday)).toBe(true);
    expect(passes(rule(leaf("received.hour", "less_than", 8), "America/Chicago"), lateSunday)).toBe(false);
  });

  test("at the final stage, certificate.* and check.<name>.*", () => {
    const final = {
      ...FACTS,
      certificate: { verified: true, age_seconds: 120, domain: "example.com" },
      checks: { scrub: { outcome: "pass", reason: "clean" } },
    };
    expect(holds(leaf("certificate.verified", "equals", "TRUE"), final, "final")).toBe(true);
    expect(holds(leaf("certificate.age_seconds", "less_than", 300), final, "final")).toBe(true);
    expect(holds(leaf("certificate.page_url", "blank"), final, "final")).toBe(true);
    expect(holds(leaf("check.scrub.outcome", "equals", "pass"), final, "final")).toBe(true);
    expect(holds(leaf("check.scrub.reason", "equals", "dirty"), final, "final")).toBe(false);
    expect(holds(leaf("check.scrub.outcome", "blank"), FACTS, "final")).toBe(true);
  });
});

describe("conditions nest freely", () => {
  test("all, any and not, several levels deep", () => {
    const ny = leaf("state", "equals", "NY");
    const ca = leaf("state", "equals", "CA");
    expect(holds({ all: [ny, { any: [ca, { not: ca }] }] })).toBe(true);
    expect(holds({ all: [ny, ca] })).toBe(false);
    expect(holds({ any: [ca, { all: [ny, { not: { not: ny } }] }] })).toBe(true);
    expect(holds({ not: { any: [ca, ny] } })).toBe(false);
    expect(holds({ all: [{ any: [{ all: [{ not: ca }] }] }] })).toBe(true);
  });
});

describe("reasons", () => {
  test("a template's {field} is the lead's value; a missing field is blank; no reason is the default", () => {
    const policy = compilePolicy({
      rules: [
        { name: "states", require: leaf("state", "equals", "CA"), reason: "State not served: {state} ({extra_data.household.income}, {extra_data.nope})" },
        { name: "no-reason", require: leaf("city", "equals", "Boston") },
        { name: "passes", require: leaf("city", "equals", "New York"), reason: "never" },
        { name: "literal", require: leaf("zip", "blank"), reason: "Braces {stay as they are} when {not a field}" },
      ],
    });
    expect(policy.failingIntakeRules(SCOPE, FACTS, AT)).toEqual([
      "State not served: NY (55000.50, )",
      "Rejected by rule: no-reason",
      "Braces {stay as they are} when {not a field}",
    ]);
  });
});

describe("which rules apply", () => {
  const rule = (extra: object) => ({ name: JSON.stringify(extra), require: leaf("state", "equals", "CA"), ...extra });
  const policy = compilePolicy({
    rules: [
      rule({}),
      rule({ vendors: ["acme"] }),
      rule({ vendors: ["Acme"] }),
      rule({ vendors: ["other"] }),
      rule({ campaigns: [" solar-q4 "] }),
      rule({ campaigns: ["wind"] }),
      rule({ vendors: ["acme"], campaigns: ["SOLAR-Q4"] }),
      rule({ enabled: false }),
      rule({ enabled: true }),
      rule({ stage: "final" }),
    ],
  });

  test("vendors match exactly, campaigns ignoring case and spaces; enabled:false and final rules are not intake's", () => {
    expect(policy.failingIntakeRules(SCOPE, FACTS, AT)).toEqual(
      ["{}", '{"vendors":["acme"]}', '{"campaigns":[" solar-q4 "]}', '{"vendors":["acme"],"campaigns":["SOLAR-Q4"]}', '{"enabled":true}'].map(
        (name) => `Rejected by rule: ${name}`,
      ),
    );
    expect(policy.failingFinalRules(SCOPE, FACTS, AT)).toEqual(['Rejected by rule: {"stage":"final"}']);
  });

  test("without a campaign, rules scoped by campaign do not apply", () => {
    expect(policy.failingIntakeRules({ vendor: "other", campaign: null }, FACTS, AT)).toEqual([
      "Rejected by rule: {}",
      'Rejected by rule: {"vendors":["other"]}',
      'Rejected by rule: {"enabled":true}',
    ]);
  });

  test("the verdict lists every failing reason in document order", () => {
    expect(policy.intakeVerdict(SCOPE, FACTS, AT)).toEqual({ kind: "rules", reasons: policy.failingIntakeRules(SCOPE, FACTS, AT) });
  });
});

describe("prePing", () => {
  const policy = compilePolicy({
    rules: [
      { name: "area", require: leaf("phone.area_code", "not_in", ["212"]), reason: "No Manhattan" },
      { name: "state", require: leaf("state", "equals", "CA") },
      { name: "mixed", require: { any: [leaf("vendor", "equals", "x"), leaf("extra_data.a", "equals", "b")] } },
      { name: "time", require: { all: [leaf("received.hour", "greater_than", 30), leaf("campaign", "not_blank"), leaf("phone_number", "not_blank")] } },
    ],
  });

  test("judges only the intake rules whose fields are all phone, vendor, campaign and time", () => {
    expect(policy.prePingRules).toEqual(["area", "time"]);
    const facts: LeadFacts = { vendor: "acme", lead: { phoneE164: "+12125550123", vendorCampaignName: "Solar-Q4" } };
    expect(policy.prePingVerdict(SCOPE, facts, AT)).toEqual({ kind: "rules", reasons: ["No Manhattan", "Rejected by rule: time"] });
    expect(policy.intakeVerdict(SCOPE, FACTS, AT)).toEqual({
      kind: "rules",
      reasons: ["No Manhattan", "Rejected by rule: state", "Rejected by rule: mixed", "Rejected by rule: time"],
    });
  });

  test("a prePing without a campaign skips the rules that read the campaign, which postLead judges", () => {
    const campaigns = compilePolicy({
      rules: [
        { name: "solar-only", require: leaf("campaign", "equals", "solar-q4") },
        { name: "area", require: leaf("phone.area_code", "equals", "312") },
      ],
    });
    const bare: LeadFacts = { vendor: "acme", lead: { phoneE164: "+12125550123" } };
    expect(campaigns.prePingVerdict({ vendor: "acme", campaign: null }, bare, AT)).toEqual({ kind: "rules", reasons: ["Rejected by rule: area"] });
    const wind: LeadFacts = { vendor: "acme", lead: { phoneE164: "+13125550123", vendorCampaignName: "wind" } };
    expect(campaigns.prePingVerdict({ vendor: "acme", campaign: "wind" }, wind, AT)).toEqual({ kind: "rules", reasons: ["Rejected by rule: solar-only"] });
  });
});

describe("factsOfLead", () => {
  test("reads a stored lead, parsing extra_data's text only when a rule reads it", () => {
    const lead = { ...LEAD, extraData: '[{"score": 7}]' } as ValidLead;
    const policy = compilePolicy({
      rules: [
        { name: "score", require: leaf("extra_data.score", "greater_than", 5) },
        { name: "state", require: leaf("state", "equals", "ny") },
      ],
    });
    expect(policy.failingIntakeRules(SCOPE, factsOfLead("acme", lead), AT)).toEqual([]);
    expect(policy.failingIntakeRules(SCOPE, factsOfLead("acme", { ...lead, extraData: "not json" }), AT)).toEqual(["Rejected by rule: score"]);
    const parse = spyOn(JSON, "parse");
    try {
      expect(
        compilePolicy({ rules: [{ name: "state", require: leaf("state", "equals", "ny") }] }).failingIntakeRules(SCOPE, factsOfLead("acme", lead), AT),
      ).toEqual([]);
      expect(parse).not.toHaveBeenCalled();
    } finally {
      parse.mockRestore();
    }
    const final = factsOfLead("acme", lead, { certificate: { verified: false } });
    expect(
      compilePolicy({ rules: [{ name: "c", stage: "final", require: leaf("certificate.verified", "equals", true) }] }).failingFinalRules(SCOPE, final, AT),
    ).toEqual(["Rejected by rule: c"]);
  });
});
