// Caps: the calendar window of each `per` in the cap's time zone (week from Monday, month ends,
// DST days of 23 and 25 hours), Retry-After until the window ends, buckets for `each`, which caps
// a request counts against (counts, scope, enabled), and what prePing is given.
import { describe, expect, test } from "bun:test";
import { calendarWindow, compilePolicy, type Policy } from "../../src/policy/index.ts";

type Cap = NonNullable<Policy["caps"]>[number];
const HOUR = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const windowOf = (per: Cap["per"], when: string, zone = "UTC") => {
  const { start, end } = calendarWindow(per, Date.parse(when), zone);
  return [iso(start), iso(end)];
};

describe("calendar windows", () => {
  test("minute and hour, also in a zone half an hour off UTC", () => {
    expect(windowOf("minute", "2026-11-27T12:34:56.789Z")).toEqual(["2026-11-27T12:34:00.000Z", "2026-11-27T12:35:00.000Z"]);
    expect(windowOf("hour", "2026-11-27T12:34:56.789Z")).toEqual(["2026-11-27T12:00:00.000Z", "2026-11-27T13:00:00.000Z"]);
    expect(windowOf("hour", "2026-11-27T10:10:00Z", "Asia/Kolkata")).toEqual(["2026-11-27T09:30:00.000Z", "2026-11-27T10:30:00.000Z"]);
  });

  test("New York's repeated hour on 2026-11-01 is two hour windows", () => {
    expect(windowOf("hour", "2026-11-01T05:30:00Z", "America/New_York")).toEqual(["2026-11-01T05:00:00.000Z", "2026-11-01T06:00:00.000Z"]);
    expect(windowOf("hour", "2026-11-01T06:30:00Z", "America/New_York")).toEqual(["2026-11-01T06:00:00.000Z", "2026-11-01T07:00:00.000Z"]);
  });

  test("a day runs from local midnight to local midnight: 24 hours, 23 on spring forward, 25 on fall back", () => {
    expect(windowOf("day", "2026-11-27T03:00:00Z", "America/New_York")).toEqual(["2026-11-26T05:00:00.000Z", "2026-11-27T05:00:00.000Z"]);
    expect(windowOf("day", "2026-03-08T12:00:00Z", "America/New_York")).toEqual(["2026-03-08T05:00:00.000Z", "2026-03-09T04:00:00.000Z"]);
    expect(windowOf("day", "2026-11-01T12:00:00Z", "America/New_York")).toEqual(["2026-11-01T04:00:00.000Z", "2026-11-02T05:00:00.000Z"]);
    expect(windowOf("day", "2026-03-08T12:00:00Z", "America/Chicago")).toEqual(["2026-03-08T06:00:00.000Z", "2026-03-09T05:00:00.000Z"]);
    expect(windowOf("day", "2026-11-01T12:00:00Z", "America/Chicago")).toEqual(["2026-11-01T05:00:00.000Z", "2026-11-02T06:00:00.000Z"]);
    // Havana springs forward at midnight: its day starts at the change, 01:00 local.
    expect(windowOf("day", "2026-03-08T12:00:00Z", "America/Havana")).toEqual(["2026-03-08T05:00:00.000Z", "2026-03-09T04:00:00.000Z"]);
    const [start, end] = windowOf("day", "2026-11-01T12:00:00Z", "America/Chicago").map(Date.parse) as [number, number];
    expect((end - start) / HOUR).toBe(25);
  });

  test("a week starts on Monday at local midnight, Sunday being its last day; one with a change is 167 hours", () => {
    expect(windowOf("week", "2026-11-29T23:59:59Z")).toEqual(["2026-11-23T00:00:00.000Z", "2026-11-30T00:00:00.000Z"]);
    expect(windowOf("week", "2026-11-30T00:00:00Z")).toEqual(["2026-11-30T00:00:00.000Z", "2026-12-07T00:00:00.000Z"]);
    expect(windowOf("week", "2026-11-23T04:00:00Z", "America/New_York")).toEqual(["2026-11-16T05:00:00.000Z", "2026-11-23T05:00:00.000Z"]);
    expect(windowOf("week", "2026-03-05T12:00:00Z", "America/New_York")).toEqual(["2026-03-02T05:00:00.000Z", "2026-03-09T04:00:00.000Z"]);
    expect(windowOf("week", "2026-12-31T12:00:00Z")).toEqual(["2026-12-28T00:00:00.000Z", "2027-01-04T00:00:00.000Z"]);
  });

  test("a month: from the 1st to the 1st, across year ends, leap Februaries and DST", () => {
    expect(windowOf("month", "2026-01-31T23:59:59Z")).toEqual(["2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"]);
    expect(windowOf("month", "2028-02-29T12:00:00Z")).toEqual(["2028-02-01T00:00:00.000Z", "2028-03-01T00:00:00.000Z"]);
    expect(windowOf("month", "2026-12-31T12:00:00Z")).toEqual(["2026-12-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z"]);
    expect(windowOf("month", "2026-11-15T12:00:00Z", "America/New_York")).toEqual(["2026-11-01T04:00:00.000Z", "2026-12-01T05:00:00.000Z"]);
    // 02:00Z on 1 December is still 30 November in Chicago.
    expect(windowOf("month", "2026-12-01T02:00:00Z", "America/Chicago")).toEqual(["2026-11-01T05:00:00.000Z", "2026-12-01T06:00:00.000Z"]);
  });
});

describe("the caps a request counts against", () => {
  const SCOPE = { vendor: "acme", campaign: " Solar-Q4 " };
  const cap = (name: string, extra: Partial<Cap> = {}): Cap => ({ name, counts: "leads", max: 10, per: "day", ...extra });
  const policy = compilePolicy({
    caps: [
      cap("all"),
      cap("per-vendor", { each: "vendor", max: 3, reason: "Vendor's daily cap reached" }),
      cap("per-campaign", { each: "campaign", per: "hour", time_zone: "America/New_York" }),
      cap("pings", { counts: "pings", per: "minute" }),
      cap("other-vendor", { vendors: ["other"] }),
      cap("wind", { campaigns: ["wind"] }),
      cap("off", { enabled: false }),
    ],
  });
  const at = Date.parse("2026-11-27T12:34:56.500Z");

  test("in scope and counting leads: each with its bucket, window, max, reason and Retry-After", () => {
    expect(policy.capsInScope(SCOPE, "leads", at)).toEqual([
      {
        name: "all",
        counts: "leads",
        bucket: "",
        windowKey: "2026-11-27T00:00:00.000Z",
        windowStart: Date.parse("2026-11-27T00:00:00Z"),
        windowEnd: Date.parse("2026-11-28T00:00:00Z"),
        max: 10,
        reason: "Cap reached: all",
        retryAfterSeconds: 41104,
        counterKey: `all\n\n${Date.parse("2026-11-27T00:00:00Z")}`,
      },
      {
        name: "per-vendor",
        counts: "leads",
        bucket: "acme",
        windowKey: "2026-11-27T00:00:00.000Z",
        windowStart: Date.parse("2026-11-27T00:00:00Z"),
        windowEnd: Date.parse("2026-11-28T00:00:00Z"),
        max: 3,
        reason: "Vendor's daily cap reached",
        retryAfterSeconds: 41104,
        counterKey: `per-vendor\nacme\n${Date.parse("2026-11-27T00:00:00Z")}`,
      },
      {
        name: "per-campaign",
        counts: "leads",
        bucket: "solar-q4",
        windowKey: "2026-11-27T12:00:00.000Z",
        windowStart: Date.parse("2026-11-27T12:00:00Z"),
        windowEnd: Date.parse("2026-11-27T13:00:00Z"),
        max: 10,
        reason: "Cap reached: per-campaign",
        retryAfterSeconds: 1504,
        counterKey: `per-campaign\nsolar-q4\n${Date.parse("2026-11-27T12:00:00Z")}`,
      },
    ]);
  });

  test("pings caps are their own; Retry-After is at least a second", () => {
    const [pings] = policy.capsInScope(SCOPE, "pings", Date.parse("2026-11-27T12:34:59.999Z"));
    expect([pings?.name, pings?.windowKey, pings?.retryAfterSeconds]).toEqual(["pings", "2026-11-27T12:34:00.000Z", 1]);
  });

  test("a later or earlier time gets its own window (the cached window is not reused outside it)", () => {
    const names = (when: string) => policy.capsInScope(SCOPE, "leads", Date.parse(when)).map((slot) => `${slot.name} ${slot.windowKey}`);
    expect(names("2026-11-28T00:00:00Z")).toEqual([
      "all 2026-11-28T00:00:00.000Z",
      "per-vendor 2026-11-28T00:00:00.000Z",
      "per-campaign 2026-11-28T00:00:00.000Z",
    ]);
    expect(names("2026-11-26T23:59:59Z")).toEqual([
      "all 2026-11-26T00:00:00.000Z",
      "per-vendor 2026-11-26T00:00:00.000Z",
      "per-campaign 2026-11-26T23:00:00.000Z",
    ]);
  });

  test("another vendor, and a request without a campaign, count against other caps", () => {
    expect(policy.capsInScope({ vendor: "other", campaign: null }, "leads", at).map((slot) => [slot.name, slot.bucket])).toEqual([
      ["all", ""],
      ["per-vendor", "other"],
      ["other-vendor", ""],
    ]);
  });

  test("postLead's verdict carries the leads caps; prePing's the leads caps (room to check) and the pings caps (to count)", () => {
    const facts = { vendor: "acme", lead: { phoneE164: "+12125550123" } };
    const postLead = policy.intakeVerdict(SCOPE, facts, at);
    const prePing = policy.prePingVerdict(SCOPE, facts, at);
    expect(postLead.kind === "pass" && postLead.caps.map((slot) => slot.name)).toEqual(["all", "per-vendor", "per-campaign"]);
    expect(prePing.kind === "pass" && prePing.caps.map((slot) => `${slot.name}:${slot.counts}`)).toEqual([
      "all:leads",
      "per-vendor:leads",
      "per-campaign:leads",
      "pings:pings",
    ]);
  });
});
