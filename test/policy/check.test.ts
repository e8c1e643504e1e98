// checkPolicyDocument: the contract's example passes; an invalid document is refused whole with
// every problem named by its JSON path, structural (from the schema) and semantic alike.
import { describe, expect, test } from "bun:test";
import { checkPolicyDocument, compilePolicy, type Policy, PolicyDocument } from "../../src/policy/index.ts";

/** docs/contract.md §10's example, verbatim. */
const CONTRACT_EXAMPLE = {
  rules: [
    {
      name: "states-served",
      stage: "intake",
      vendors: ["acme"],
      campaigns: ["solar-q4"],
      require: { field: "state", op: "in", value: ["CA", "NY"] },
      reason: "State not served: {state}",
    },
  ],
  caps: [{ name: "acme-daily", vendors: ["acme"], counts: "leads", max: 1000, per: "day", time_zone: "America/New_York", reason: "Daily cap reached" }],
  schedules: [
    {
      name: "call-center",
      campaigns: ["solar-q4"],
      time_zone: "America/Chicago",
      open: { mon: "08:00-20:00", tue: "08:00-20:00", sat: "09:00-13:00" },
      reason: "Outside hours of operation",
    },
  ],
} satisfies Policy;

const problemsOf = (value: unknown) => {
  const result = checkPolicyDocument(value);
  if (result.ok) throw new Error("expected the document to be refused");
  return result.problems.map((problem) => `${problem.path}: ${problem.message}`);
};

describe("a valid document", () => {
  test("the contract's example, an empty document and §11's check entry pass, and the policy is the document itself", () => {
    const result = checkPolicyDocument(CONTRACT_EXAMPLE);
    expect(result).toEqual({ ok: true, policy: CONTRACT_EXAMPLE });
    expect(checkPolicyDocument({}).ok).toBe(true);
    const check = {
      name: "litigator-scrub",
      stage: "intake",
      url: "https://scrub.example.com/check",
      send: ["phone_number", "state"],
      timeout_ms: 800,
      cache: "7d",
      on_error: "accept",
      vendors: ["acme"],
    };
    expect(checkPolicyDocument({ checks: [check] }).ok).toBe(true);
  });

  test.each(["docs/policy.md", "README.md"])("%s's example passes", async (page) => {
    const text = await Bun.file(`${import.meta.dir}/../../${page}`).text();
    const blocks = text
      .split("```json")
      .slice(1)
      .map((block) => block.split("```")[0]!);
    const example = JSON.parse(blocks.find((block) => block.includes('"rules"'))!);
    expect(checkPolicyDocument(example)).toEqual({ ok: true, policy: example });
  });

  test("final rules may read certificate.* and the document's checks' answers", () => {
    const document = {
      checks: [{ name: "scrub", url: "https://scrub.example.com/" }],
      rules: [
        {
          name: "cert",
          stage: "final",
          require: {
            all: [
              { field: "certificate.verified", op: "equals", value: true },
              { field: "check.scrub.outcome", op: "equals", value: "pass" },
            ],
          },
        },
      ],
    };
    expect(checkPolicyDocument(document).ok).toBe(true);
  });
});

describe("an invalid document", () => {
  test("names every problem by its JSON path, in the document's order", () => {
    const document = {
      rules: [
        { name: "ok", require: { field: "state", op: "equals", value: "NY" } },
        { name: "ok", require: { field: "state", op: "equals", value: "NY" } },
        {
          name: "nested",
          require: {
            any: [
              { field: "state", op: "approximately", value: "NY" },
              { all: [] },
              { field: "state", op: "in", value: "NY" },
              { not: { field: "extra_data.score", op: "less_than", value: "10" } },
              { field: "email", op: "matches", value: "(?<=a)b" },
              { field: "colour", op: "equals", value: "red" },
              { field: "state", op: "blank", value: "x" },
              { oops: true },
            ],
          },
          reason: "Bad {nonsense}",
          extra: 1,
        },
        { name: "too-early", require: { field: "certificate.verified", op: "equals", value: true } },
        { name: "no-such-check", stage: "final", require: { field: "check.missing.outcome", op: "equals", value: "pass" } },
      ],
      schedules: [{ name: "hours", time_zone: "Mars/Olympus", open: { mon: "25:00-26:00", tue: "9-5", funday: "08:00-09:00", wed: "10:00-10:00" } }],
      caps: [
        { name: "cap", counts: "calls", max: -1, per: "year", each: "state", time_zone: "Nowhere/City" },
        { counts: "leads", max: 1.5, per: "day" },
      ],
      checks: [{ name: "scrub", url: "ftp://scrub.example.com", send: ["colour"], timeout_ms: 0, cache: "forever" }],
      budget: 5,
    };
    expect(problemsOf(document)).toEqual([
      '/rules/1/name: "ok" is already the name of /rules/0',
      "/rules/2/require/any/0/op: must be one of equals, not_equals, in, not_in, starts_with, contains, blank, not_blank, less_than, greater_than, matches",
      "/rules/2/require/any/1/all: must have at least 1 item",
      "/rules/2/require/any/7: must be one of {field, op, value}, {all}, {any}, {not}",
      "/rules/2/extra: is not a known property (known: name, stage, vendors, campaigns, enabled, time_zone, require, reason)",
      "/rules/2/require/any/2/value: in needs a non-empty list of values",
      "/rules/2/require/any/3/not/value: less_than needs a number",
      expect.stringMatching(/^\/rules\/2\/require\/any\/4\/value: not a regular expression RE2 accepts: /),
      expect.stringMatching(/^\/rules\/2\/require\/any\/5\/field: "colour" is not a field a rule can read/),
      "/rules/2/require/any/6/value: blank takes no value",
      expect.stringMatching(/^\/rules\/2\/reason: "nonsense" is not a field a rule can read/),
      '/rules/3/require/field: certificate.verified is known only when the lead is decided: use it in a rule with "stage": "final"',
      '/rules/4/require/field: "check.missing.outcome" names no check of the document: missing',
      "/schedules/0/open/funday: is not a known property (known: mon, tue, wed, thu, fri, sat, sun)",
      "/schedules/0/time_zone: is not a time zone (an IANA name such as America/New_York): Mars/Olympus",
      "/schedules/0/open/mon: 25:00-26:00: the start must be a time from 00:00 to 23:59",
      '/schedules/0/open/tue: must be ranges "HH:MM-HH:MM", separated by commas: "9-5"',
      "/schedules/0/open/wed: 10:00-10:00: an empty range (for the whole day write 00:00-24:00)",
      "/caps/0/counts: must be one of leads, pings",
      "/caps/0/max: must be at least 0",
      "/caps/0/per: must be one of minute, hour, day, week, month",
      "/caps/0/each: must be one of vendor, campaign",
      "/caps/0/time_zone: is not a time zone (an IANA name such as America/New_York): Nowhere/City",
      "/caps/1/name: is required",
      "/caps/1/max: must be a whole number",
      "/checks/0/timeout_ms: must be at least 1",
      "/checks/0/cache: must match ^[0-9]+[smhd]$",
      "/checks/0/url: is not an http(s) URL: ftp://scrub.example.com",
      "/checks/0/send/0: is not a lead field: colour",
      "/budget: is not a known property (known: rules, schedules, caps, checks)",
    ]);
  });

  test("a value that is not a document is named at the root, and wrong types at their paths", () => {
    for (const value of [null, [], "rules", 3]) expect(problemsOf(value)).toEqual(["/: must be an object {rules, schedules, caps, checks}"]);
    expect(problemsOf({ rules: {}, caps: [1], schedules: [{ name: 5, open: [], enabled: "yes" }] })).toEqual([
      "/rules: must be a list of objects {name, stage, vendors, campaigns, enabled, time_zone, require, reason}",
      "/schedules/0/name: must be a text",
      "/schedules/0/open: must be an object {mon, tue, wed, thu, fri, sat, sun}",
      "/schedules/0/enabled: must be true or false",
      "/caps/0: must be an object {name, vendors, campaigns, enabled, counts, max, per, time_zone, each, reason}",
    ]);
  });

  test("a path's ~ and / are escaped as JSON Pointer says", () => {
    expect(problemsOf({ rules: [], "a/b~c": 1 })).toEqual(["/a~1b~0c: is not a known property (known: rules, schedules, caps, checks)"]);
  });

  test("a document nested deeper than 64 levels is refused at the first too-deep path, without overflowing the stack", () => {
    let condition: Record<string, unknown> = { field: "state", op: "blank" };
    for (let level = 0; level < 20_000; level++) condition = { not: condition };
    const problems = problemsOf({ rules: [{ name: "deep", require: condition }] });
    expect(problems).toEqual([`/rules/0/require${"/not".repeat(61)}: nests objects and lists deeper than 64 levels`]);
    let shallow: Record<string, unknown> = { field: "state", op: "blank" };
    for (let level = 0; level < 30; level++) shallow = { any: [shallow] };
    expect(checkPolicyDocument({ rules: [{ name: "ok", require: shallow }] }).ok).toBe(true);
  });

  test("compilePolicy refuses what the checker refuses", () => {
    expect(() => compilePolicy({ rules: [{ name: "x", require: { field: "colour", op: "blank" } }] })).toThrow(/\/rules\/0\/require\/field/);
  });
});

describe("the schema as the API page shows it", () => {
  test("every property of every entry carries a description", () => {
    const undescribed: string[] = [];
    const visit = (schema: Record<string, unknown>, path: string) => {
      for (const [key, property] of Object.entries((schema.properties ?? {}) as Record<string, Record<string, unknown>>)) {
        if (typeof property.description !== "string") undescribed.push(`${path}/${key}`);
        const items = property.items as Record<string, unknown> | undefined;
        visit(items ?? property, `${path}/${key}`);
      }
    };
    visit(PolicyDocument as unknown as Record<string, unknown>, "");
    expect(undescribed).toEqual([]);
    expect(JSON.parse(JSON.stringify(PolicyDocument)).properties.rules.items.properties.require.$id).toBe("PolicyCondition");
  });
});
