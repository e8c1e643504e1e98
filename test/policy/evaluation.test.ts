// What the policy keeps between requests so that a request computes little (compile.ts's scope
// plans, slots.ts, hours.ts, unrolled.ts), and that what it keeps never changes an answer: cap slots
// kept within a second and a window, windows and schedules across a boundary and a DST change,
// either way in time; a scope's plan per compiled policy (so per version); rule lists unrolled into
// one function whose source holds none of the document's text.
import { describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import type { ValidLead } from "../../src/intake/lead-schema.ts";
import { intakePolicy } from "../../src/policy-in-force/intake.ts";
import { loadPolicyInForce } from "../../src/policy-in-force/loader.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { compilePolicy, factsOfLead, type LeadFacts, type Policy } from "../../src/policy/index.ts";
import { storeOn } from "../../src/store/sqlite.ts";

const at = (iso: string) => Date.parse(iso);
const SCOPE = { vendor: "acme", campaign: "Solar-Q4" };
const slotsAt = (policy: ReturnType<typeof compilePolicy>, iso: string) => policy.capsInScope(SCOPE, "leads", at(iso));

describe("cap slots kept between requests", () => {
  const policy = compilePolicy({
    caps: [
      { name: "hourly", counts: "leads", max: 5, per: "hour" },
      { name: "daily-ny", counts: "leads", max: 9, per: "day", each: "vendor", time_zone: "America/New_York" },
    ],
  });

  test("the same list within a second; the next second, Retry-After one less; the next hour, a new window", () => {
    const first = slotsAt(policy, "2026-11-27T12:59:58.000Z");
    expect(slotsAt(policy, "2026-11-27T12:59:58.999Z")).toBe(first);
    expect(first.map((slot) => slot.retryAfterSeconds)).toEqual([2, 16 * 3600 + 2]); // New York's day ends at 05:00Z
    const next = slotsAt(policy, "2026-11-27T12:59:59.000Z");
    expect(next).not.toBe(first);
    expect(next.map((slot) => slot.retryAfterSeconds)).toEqual([1, 16 * 3600 + 1]);
    const crossed = slotsAt(policy, "2026-11-27T13:00:00.000Z");
    expect(crossed.map((slot) => [slot.windowKey, slot.retryAfterSeconds])).toEqual([
      ["2026-11-27T13:00:00.000Z", 3600],
      ["2026-11-27T05:00:00.000Z", 16 * 3600],
    ]);
    expect(crossed[0]!.counterKey).toBe(`hourly\n\n${at("2026-11-27T13:00:00Z")}`);
  });

  test("an earlier instant after a later one gets its own window again, not the one kept", () => {
    slotsAt(policy, "2026-11-27T13:30:00Z");
    expect(slotsAt(policy, "2026-11-27T12:30:00Z").map((slot) => slot.windowKey)).toEqual(["2026-11-27T12:00:00.000Z", "2026-11-27T05:00:00.000Z"]);
    expect(slotsAt(policy, "2026-11-27T13:30:00Z").map((slot) => slot.windowKey)).toEqual(["2026-11-27T13:00:00.000Z", "2026-11-27T05:00:00.000Z"]);
  });

  test("New York's fall-back day, asked a second apart across local midnight: a 25-hour window from its start", () => {
    const before = slotsAt(policy, "2026-11-01T03:59:59Z"); // 23:59:59 EDT on 31 October
    const after = slotsAt(policy, "2026-11-01T04:00:00Z"); // 00:00 EDT on 1 November
    expect(before[1]!.windowKey).toBe("2026-10-31T04:00:00.000Z");
    expect(before[1]!.retryAfterSeconds).toBe(1);
    expect([after[1]!.windowKey, after[1]!.windowEnd - after[1]!.windowStart, after[1]!.retryAfterSeconds]).toEqual([
      "2026-11-01T04:00:00.000Z",
      25 * 3600_000,
      25 * 3600,
    ]);
  });

  test("the pass verdict is the same object while the slots are, and carries them", () => {
    const facts: LeadFacts = { vendor: "acme", lead: {} };
    const first = policy.intakeVerdict(SCOPE, facts, at("2026-11-27T10:00:00.100Z"));
    const again = policy.intakeVerdict(SCOPE, facts, at("2026-11-27T10:00:00.900Z"));
    expect(again).toBe(first);
    expect(first.kind === "pass" && first.caps).toBe(policy.capsInScope(SCOPE, "leads", at("2026-11-27T10:00:00.500Z")));
  });
});

describe("schedules kept for a minute", () => {
  const closed = (policy: ReturnType<typeof compilePolicy>, iso: string) => policy.closedSchedule(SCOPE, at(iso));

  test("asked in a row across the closing minute, and back", () => {
    const policy = compilePolicy({ schedules: [{ name: "office", time_zone: "America/Chicago", open: { fri: "09:00-17:00" } }] });
    expect(closed(policy, "2026-11-27T22:59:59.999Z")).toBeNull(); // 16:59:59.999 CST
    expect(closed(policy, "2026-11-27T23:00:00.000Z")).toBe("Outside hours of operation: office");
    expect(closed(policy, "2026-11-27T22:59:00.000Z")).toBeNull();
  });

  test("Chicago's spring-forward: 01:59 CST open, the next minute is 03:00 CDT, closed", () => {
    const policy = compilePolicy({ schedules: [{ name: "night", time_zone: "America/Chicago", open: { sun: "00:00-02:30" } }] });
    expect(closed(policy, "2026-03-08T07:59:30Z")).toBeNull();
    expect(closed(policy, "2026-03-08T08:00:00Z")).toBe("Outside hours of operation: night");
  });
});

describe("scope plans", () => {
  const policy = compilePolicy({
    rules: [
      { name: "solar-states", campaigns: ["solar-q4"], require: { field: "state", op: "in", value: ["CA", "AZ"] }, reason: "Not served: {state}" },
      { name: "acme-zip", vendors: ["acme"], require: { field: "zip", op: "starts_with", value: "9" } },
    ],
  });
  const reasons = (vendor: string, campaign: string | null, state: string) =>
    policy.failingIntakeRules({ vendor, campaign }, { vendor, lead: { state, zip: "10001" } }, 0);

  test("a campaign as sent and as folded are one scope; each scope has its own rules", () => {
    expect(reasons("acme", " SOLAR-q4 ", "NY")).toEqual(["Not served: NY", "Rejected by rule: acme-zip"]);
    expect(reasons("acme", "solar-q4", "CA")).toEqual(["Rejected by rule: acme-zip"]);
    expect(reasons("other", "solar-q4", "NY")).toEqual(["Not served: NY"]);
    expect(reasons("other", null, "NY")).toEqual([]);
  });

  test("past the plans kept (4,096), answers stay the same", () => {
    for (let i = 0; i < 5_000; i++) expect(reasons("acme", `campaign-${i}`, "NY")).toEqual(["Rejected by rule: acme-zip"]);
    expect(reasons("acme", "Solar-Q4", "NY")).toEqual(["Not served: NY", "Rejected by rule: acme-zip"]);
  });
});

test("a policy imported and reloaded is the one that answers: plans belong to the compiled policy of a version", async () => {
  const database = openDatabase(":memory:");
  const store = storeOn(database.db);
  const inForce = await loadPolicyInForce(store, { reloadMs: 60_000 });
  try {
    const policy = intakePolicy(inForce);
    const lead = { state: "NY", vendorCampaignName: "solar-q4" } as ValidLead;
    const rule = (state: string): Policy => ({ rules: [{ name: "state", require: { field: "state", op: "equals", value: state } }] });
    await importPolicy(store, JSON.stringify(rule("NY")), "cli:test");
    await inForce.refresh();
    expect(policy.postLead("acme", lead, 0)).toBeNull();
    await importPolicy(store, JSON.stringify(rule("CA")), "cli:test");
    await inForce.refresh();
    expect(policy.postLead("acme", lead, 0)).toEqual({ kind: "refused", reasons: ["Rejected by rule: state"] });
  } finally {
    inForce.stop();
    database.close();
  }
});

describe("rule lists unrolled into one function", () => {
  const evaluate = (document: Policy, facts: LeadFacts) => compilePolicy(document).failingIntakeRules(SCOPE, facts, 0);

  test("the document's texts are values, never code: quotes, backticks, line separators, names like a prototype's", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a template literal's text is the point: it must stay text
    const tricky = ['"); throw new Error("x"); ("', "`${process.exit(1)}`", "a\u2028b\\", "__proto__"];
    const document: Policy = {
      rules: tricky.map((value, i) => ({
        name: `${value}-${i}`,
        require: { field: "extra_data.__proto__", op: "not_equals", value },
        reason: `{city} ${value}`,
      })),
    };
    expect(evaluate(document, { vendor: "acme", lead: { city: "Austin" }, extraData: { ["__proto__"]: "x" } })).toEqual([]);
    const facts = { vendor: "acme", lead: { city: "Austin" }, extraData: JSON.parse(`{"__proto__": ${JSON.stringify(tricky[1])}}`) };
    expect(evaluate(document, facts)).toEqual([`Austin ${tricky[1]}`]);
  });

  test("a field read as text, folded and as a number by several rules: each read once per lead, each lead its own", () => {
    const document: Policy = {
      rules: [
        { name: "blank", require: { field: "extra_data.score", op: "not_blank" } },
        { name: "low", require: { not: { field: "extra_data.score", op: "less_than", value: 600 } }, reason: "Low: {extra_data.score}" },
        { name: "shape", require: { field: "extra_data.score", op: "matches", value: "^[0-9]+$" } },
        { name: "seven", require: { field: "extra_data.score", op: "starts_with", value: "7" } },
      ],
    };
    let reads = 0;
    const facts = (score: unknown): LeadFacts => ({
      vendor: "acme",
      lead: {},
      get extraData() {
        reads++;
        return { score };
      },
    });
    expect(evaluate(document, facts(" 550 "))).toEqual(["Low: 550", "Rejected by rule: seven"]);
    expect(reads).toBe(2); // once for the conditions, once for the reason's template
    expect(evaluate(document, facts(720))).toEqual([]);
    expect(evaluate(document, facts("7e2"))).toEqual(["Rejected by rule: shape"]);
    expect(evaluate(document, facts(null))).toEqual(["Rejected by rule: blank", "Rejected by rule: shape", "Rejected by rule: seven"]);
  });

  test("a long list (generated as several functions) still answers every failing rule in document order", () => {
    const rules = Array.from({ length: 100 }, (_, i) => ({
      name: `r${i}`,
      require: { field: i % 2 === 0 ? "state" : "zip", op: "not_equals" as const, value: i % 7 === 0 ? (i % 2 === 0 ? "NY" : "10001") : "other" },
    }));
    const failing = rules.filter((_, i) => i % 7 === 0).map((rule) => `Rejected by rule: ${rule.name}`);
    expect(evaluate({ rules }, { vendor: "acme", lead: { state: "NY", zip: "10001" } })).toEqual(failing);
    expect(failing.length).toBe(15);
  });

  test("nested all, any and not answer as written, and a rule list's function serves each lead afresh", () => {
    const policy = compilePolicy({
      rules: [
        { name: "r", require: { all: [{ field: "state", op: "equals", value: "ny" }, { not: { any: [{ field: "state", op: "in", value: ["CA"] }] } }] } },
      ],
    });
    const answer = (state: string) => policy.failingIntakeRules(SCOPE, factsOfLead("acme", { state } as Partial<ValidLead>), 0);
    expect(answer("NY")).toEqual([]);
    expect(answer("CA")).toEqual(["Rejected by rule: r"]);
    expect(answer("ny")).toEqual([]);
  });
});
