// Schedules: open hours per weekday in the schedule's time zone, ranges past midnight, several
// ranges a day, DST's spring-forward and fall-back days in America/Chicago and America/New_York,
// scoping, enabled:false, the default reason; and the verdict's order: schedules, rules, caps.
import { describe, expect, test } from "bun:test";
import { compilePolicy, type LeadFacts, type Policy } from "../../src/policy/index.ts";

type Schedule = NonNullable<Policy["schedules"]>[number];
const SCOPE = { vendor: "acme", campaign: "solar-q4" };
const at = (iso: string) => Date.parse(iso);

const closedAt = (schedule: Omit<Schedule, "name"> & { name?: string }, iso: string) =>
  compilePolicy({ schedules: [{ name: "hours", ...schedule }] }).closedSchedule(SCOPE, at(iso));
const isOpen = (schedule: Omit<Schedule, "name">, iso: string) => closedAt(schedule, iso) === null;

describe("open hours", () => {
  test("a day's range is [start, end): open at the start, closed at the end; a day absent is closed", () => {
    const schedule = { open: { mon: "08:00-20:00" } };
    expect(isOpen(schedule, "2026-11-23T07:59:59Z")).toBe(false);
    expect(isOpen(schedule, "2026-11-23T08:00:00Z")).toBe(true);
    expect(isOpen(schedule, "2026-11-23T19:59:59Z")).toBe(true);
    expect(isOpen(schedule, "2026-11-23T20:00:00Z")).toBe(false);
    expect(isOpen(schedule, "2026-11-24T12:00:00Z")).toBe(false);
  });

  test("several ranges in a day; 00:00-24:00 is the whole day", () => {
    const schedule = { open: { mon: "08:00-12:00, 13:00-17:00", tue: "00:00-24:00" } };
    expect(isOpen(schedule, "2026-11-23T11:59:00Z")).toBe(true);
    expect(isOpen(schedule, "2026-11-23T12:30:00Z")).toBe(false);
    expect(isOpen(schedule, "2026-11-23T13:00:00Z")).toBe(true);
    expect(isOpen(schedule, "2026-11-24T00:00:00Z")).toBe(true);
    expect(isOpen(schedule, "2026-11-24T23:59:59Z")).toBe(true);
    expect(isOpen(schedule, "2026-11-25T00:00:00Z")).toBe(false);
  });

  test("a range whose end is before its start runs past midnight into the next day, sunday's into monday", () => {
    const schedule = { time_zone: "America/Chicago", open: { fri: "22:00-02:00", sun: "23:00-01:00" } };
    expect(isOpen(schedule, "2026-11-28T03:59:00Z")).toBe(false); // Fri 21:59 CST
    expect(isOpen(schedule, "2026-11-28T05:30:00Z")).toBe(true); // Fri 23:30
    expect(isOpen(schedule, "2026-11-28T07:30:00Z")).toBe(true); // Sat 01:30
    expect(isOpen(schedule, "2026-11-28T08:00:00Z")).toBe(false); // Sat 02:00
    expect(isOpen(schedule, "2026-11-30T06:30:00Z")).toBe(true); // Mon 00:30
    expect(isOpen(schedule, "2026-11-30T07:00:00Z")).toBe(false); // Mon 01:00
  });
});

describe("DST", () => {
  const chicago = { time_zone: "America/Chicago", open: { sat: "08:00-20:00", sun: "08:00-20:00" } };

  test("spring forward (Chicago, 2026-03-08): 08:00 is 14:00Z the day before and 13:00Z that day", () => {
    expect(isOpen(chicago, "2026-03-07T13:30:00Z")).toBe(false); // Sat 07:30 CST
    expect(isOpen(chicago, "2026-03-07T14:00:00Z")).toBe(true);
    expect(isOpen(chicago, "2026-03-08T13:00:00Z")).toBe(true); // Sun 08:00 CDT
    expect(isOpen(chicago, "2026-03-08T12:59:00Z")).toBe(false);
    expect(isOpen(chicago, "2026-03-09T00:59:00Z")).toBe(true); // Sun 19:59 CDT
    expect(isOpen(chicago, "2026-03-09T01:00:00Z")).toBe(false);
  });

  test("fall back (Chicago, 2026-11-01): 08:00 is 13:00Z the day before and 14:00Z that day", () => {
    expect(isOpen(chicago, "2026-10-31T13:00:00Z")).toBe(true); // Sat 08:00 CDT
    expect(isOpen(chicago, "2026-11-01T13:30:00Z")).toBe(false); // Sun 07:30 CST
    expect(isOpen(chicago, "2026-11-01T14:00:00Z")).toBe(true);
    expect(isOpen(chicago, "2026-11-02T01:59:00Z")).toBe(true); // Sun 19:59 CST
  });

  test("New York's repeated hour on 2026-11-01 is open twice; its skipped hour on 2026-03-08 never", () => {
    const repeated = { time_zone: "America/New_York", open: { sun: "01:00-01:30" } };
    expect(isOpen(repeated, "2026-11-01T05:15:00Z")).toBe(true); // 01:15 EDT
    expect(isOpen(repeated, "2026-11-01T06:15:00Z")).toBe(true); // 01:15 EST
    expect(isOpen(repeated, "2026-11-01T06:45:00Z")).toBe(false); // 01:45 EST
    const skipped = { time_zone: "America/New_York", open: { sun: "02:00-03:00" } };
    for (const iso of ["2026-03-08T06:59:00Z", "2026-03-08T07:00:00Z", "2026-03-08T07:30:00Z"]) expect(isOpen(skipped, iso)).toBe(false);
  });

  test("a range past midnight across the change (New York, Saturday 22:00 to Sunday 03:00)", () => {
    const night = { time_zone: "America/New_York", open: { sat: "22:00-03:00" } };
    expect(isOpen(night, "2026-03-08T06:30:00Z")).toBe(true); // Sun 01:30 EST
    expect(isOpen(night, "2026-03-08T07:30:00Z")).toBe(false); // Sun 03:30 EDT
    expect(isOpen(night, "2026-11-01T07:30:00Z")).toBe(true); // Sun 02:30 EST, after the repeated hour
    expect(isOpen(night, "2026-11-01T08:00:00Z")).toBe(false); // Sun 03:00 EST
  });
});

describe("which schedules apply, and their reasons", () => {
  test("the first closed schedule in scope answers, with its reason or the default; enabled:false and other scopes are skipped", () => {
    const noon = "2026-11-23T12:00:00Z"; // Monday
    const policy = compilePolicy({
      schedules: [
        { name: "off", enabled: false, open: {} },
        { name: "other-vendor", vendors: ["other"], open: {} },
        { name: "other-campaign", campaigns: ["wind"], open: {} },
        { name: "open", vendors: ["acme"], campaigns: ["SOLAR-Q4"], open: { mon: "09:00-17:00" } },
        { name: "weekend", open: { sat: "09:00-17:00" } },
        { name: "later", open: {}, reason: "never reached" },
      ],
    });
    expect(policy.closedSchedule(SCOPE, at(noon))).toBe("Outside hours of operation: weekend");
    const withReason = compilePolicy({ schedules: [{ name: "s", open: {}, reason: "Call centre closed" }] });
    expect(withReason.closedSchedule(SCOPE, at(noon))).toBe("Call centre closed");
    expect(policy.closedSchedule({ vendor: "other", campaign: null }, at(noon))).toBe("Outside hours of operation: other-vendor");
  });
});

describe("the verdict's order", () => {
  const facts: LeadFacts = { vendor: "acme", lead: { state: "TX", vendorCampaignName: "solar-q4" } };
  const document = {
    schedules: [{ name: "hours", open: { mon: "09:00-17:00" } }],
    rules: [{ name: "state", require: { field: "state", op: "equals", value: "NY" } }],
    caps: [{ name: "cap", counts: "leads", max: 5, per: "day" }],
  } satisfies Policy;

  test("a closed schedule answers before the rules, the rules before the caps", () => {
    const policy = compilePolicy(document);
    expect(policy.intakeVerdict(SCOPE, facts, at("2026-11-23T08:00:00Z"))).toEqual({ kind: "closed", reason: "Outside hours of operation: hours" });
    expect(policy.intakeVerdict(SCOPE, facts, at("2026-11-23T10:00:00Z"))).toEqual({ kind: "rules", reasons: ["Rejected by rule: state"] });
    const pass = policy.intakeVerdict(SCOPE, { ...facts, lead: { state: "NY" } }, at("2026-11-23T10:00:00Z"));
    expect(pass.kind === "pass" && pass.caps.map((cap) => cap.name)).toEqual(["cap"]);
  });

  test("an empty policy passes with no caps, and says it is not active", () => {
    const policy = compilePolicy({});
    expect(policy.active).toBe(false);
    expect(policy.intakeVerdict(SCOPE, facts, 0)).toEqual({ kind: "pass", caps: [] });
    expect(compilePolicy(document).active).toBe(true);
  });
});
