// The fixtures folder and the fixture format: what loads, what is refused, and how a request is built.
import { describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXAMPLE_LEAD } from "../../src/intake/lead-schema.ts";
import { BASE_LEAD, FixtureError, loadFixtures } from "../../src/replay/fixture.ts";
import { parseFixture } from "../../src/replay/parse-fixture.ts";
import { requirementsOf } from "../../src/replay/case.ts";
import { buildRequest, paddedBody, type Target } from "../../src/replay/request.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures");
const fixtures = loadFixtures(FIXTURES);

describe("the fixtures folder", () => {
  test("holds at least 40 cases, sorted by path, in one folder per contract section", () => {
    expect(fixtures.length).toBeGreaterThanOrEqual(40);
    const names = fixtures.map((f) => f.name);
    expect(names).toEqual([...names].sort());
    const sections = new Set(names.map((name) => name.split("/")[0]!.split("-")[0]));
    expect([...sections].sort()).toEqual(["1", "10", "11", "2", "3", "4", "5", "6", "7", "8"]);
  });

  test("every postLead error text of docs/contract.md §4 and the body, auth and eligibility texts appear in an expectation", () => {
    const expectations = JSON.stringify(fixtures.map((f) => [f.steps.map((s) => s.expect), f.callback]));
    const texts = [
      "Missing Field: ",
      "Invalid Type (expected string): ",
      "Invalid Characters: ",
      "Invalid Phone Number: ",
      "Invalid State Code (2 characters): ",
      "Invalid Mailing State Code: ",
      "Invalid ZIP Code: ",
      "Invalid Mailing ZIP Code: ",
      "Invalid Email: ",
      "Certificate URL exceeds 500 characters, or not a valid URL ",
      "Missing Field: extra_data (required when certificate_url is not provided)",
      "Invalid extra_data: must be an object or an array of objects",
      "Invalid Callback URL: ",
      "Field Too Long (max 255 characters): ",
      "Malformed JSON body",
      "Request body must be a JSON object",
      "Request body exceeds",
      "Request body nests objects and arrays deeper than 32 levels",
      "Unauthorized",
      "Rate limit exceeded",
      "Not Found",
      "Method Not Allowed",
      "Phone number can not be sent to postLead at this time.",
      "Idempotency-Key was already used with a different request body",
      "Lead not found",
      "Lead accepted.",
      "Certificate URL could not be verified",
    ];
    for (const text of texts) expect(expectations).toContain(JSON.stringify(text).slice(1, -1));
  });

  test("cases that need more than the service declare it or imply it", () => {
    const needs = Object.fromEntries(fixtures.map((f) => [f.name, requirementsOf(f)]));
    expect(needs["3-auth/rate-limit-exceeded-429"]).toEqual(["rate-limit"]);
    expect(needs["8-callback/rejected-after-posting-callback"]!.sort()).toEqual(["receiver", "verify-certificates"]);
    expect(needs["8-callback/accepted-callback-signed"]).toEqual(["receiver"]);
    expect(needs["7-final-result/lookup-other-vendors-lead-404"]).toEqual(["other-vendor"]);
    expect(needs["5-eligibility/suppressed-number-preping-422"]).toEqual(["suppressed-phone"]);
    expect(needs["4-post-lead/missing-field"]).toEqual([]);
    expect(needs["10-policy/leads-cap-full"]).toEqual(["database"]);
    expect(needs["10-policy/each-vendor-cap"]!.sort()).toEqual(["database", "other-vendor"]);
    expect(needs["10-policy/final-rules-reject-in-callback"]!.sort()).toEqual(["database", "receiver"]);
    expect(needs["10-policy/intake-check-fail"]).toEqual(["database", "receiver"]);
    expect(needs["11-certificates/no-phone-match-rejected"]).toEqual(["receiver", "trustedform"]);
  });

  test("every kind of policy refusal has its case, each carrying its policy", () => {
    const policyCases = fixtures.filter((f) => f.name.startsWith("10-policy/"));
    expect(policyCases.every((f) => f.policy !== undefined)).toBe(true);
    expect(fixtures.filter((f) => !f.name.startsWith("10-policy/")).every((f) => f.policy === undefined)).toBe(true);
    const lists = (key: string) => policyCases.flatMap((f) => (f.policy![key] ?? []) as Record<string, unknown>[]);
    expect(lists("rules").some((rule) => rule.stage === "final")).toBe(true);
    expect(lists("rules").some((rule) => rule.vendors !== undefined && rule.campaigns !== undefined)).toBe(true);
    expect(lists("schedules").some((schedule) => JSON.stringify(schedule.open) === "{}")).toBe(true);
    expect(new Set(lists("checks").map((check) => check.on_error))).toEqual(new Set(["accept", "reject"]));
    expect(new Set(lists("caps").map((cap) => `${cap.counts}${cap.each ? `/${cap.each}` : ""}`))).toEqual(new Set(["leads", "pings", "leads/vendor"]));
  });
});

describe("the fixture format", () => {
  const step = { request: { method: "post", path: "/v1/prePing", body: { phone_number: "{{phone}}" } }, expect: { status: 200, body: {} } };
  const parse = (data: unknown) => parseFixture("x/case", "x/case.json", data);

  test("a minimal case loads, with defaults filled in", () => {
    const fixture = parse({ description: "d", steps: [step], callback: { expect: { body: {} } } });
    expect(fixture.steps[0]!.request.method).toBe("POST");
    expect(fixture.requires).toEqual([]);
    expect(fixture.callback).toMatchObject({ path: "/callback", attempts: 1 });
    expect(fixture.policy).toBeUndefined();
  });

  test("a case's policy is kept as written (placeholders filled when it runs) and needs the target's database", () => {
    const policy = { caps: [{ name: "cap-{{unique}}", vendors: ["{{vendor}}"], counts: "leads", max: 1, per: "day" }] };
    const fixture = parse({ description: "d", policy, steps: [step] });
    expect(fixture.policy).toEqual(policy);
    expect(requirementsOf(fixture)).toEqual(["database"]);
  });

  test("a case's mock providers are kept as written and imply what they need: checks the receiver, certificates also a target verifying TrustedForm", () => {
    const checks = [{ phone: "{{phone_e164}}", outcome: "fail", reason: "Known litigator" }];
    const certificates = [{ token: "{{trustedform_id}}", scenario: "expired" }];
    const withChecks = parse({ description: "d", checks, steps: [step] });
    expect(withChecks.checks).toEqual(checks);
    expect(requirementsOf(withChecks)).toEqual(["receiver"]);
    expect(requirementsOf(parse({ description: "d", certificates, steps: [step] }))).toEqual(["receiver", "trustedform"]);
    const policy = { checks: [{ name: "scrub", url: "{{check_url}}", send: ["phone_number"] }] };
    expect(requirementsOf(parse({ description: "d", policy, steps: [step] }))).toEqual(["database", "receiver"]);
  });

  test("a lead is the base lead with the case's differences: fields set, added, or left out (without)", () => {
    const request = { method: "POST", path: "/v1/postLead", lead: { zip: "1234", surprise: true }, without: ["street"] };
    const { street: _street, ...rest } = BASE_LEAD;
    expect(parse({ description: "d", steps: [{ ...step, request }] }).steps[0]!.request.body).toEqual({ ...rest, zip: "1234", surprise: true });
    expect<Record<string, unknown>>({ ...BASE_LEAD, vendor_campaign_name: EXAMPLE_LEAD.vendor_campaign_name }).toEqual({
      ...EXAMPLE_LEAD,
      phone_number: "{{phone}}",
    } as Record<string, string>);
  });

  test.each([
    ["no steps", { description: "d", steps: [] }, "steps must not be empty"],
    ["an unknown feature", { description: "d", requires: ["verify-certificate"], steps: [step] }, 'unknown feature "verify-certificate"'],
    ["an unknown key", { description: "d", steps: [step], expected: {} }, "unknown key(s): expected"],
    ["an unknown placeholder", { description: "d", steps: [{ ...step, request: { ...step.request, path: "/v1/{{nope}}" } }] }, "unknown placeholder {{nope}}"],
    [
      "a matcher inside text",
      { description: "d", steps: [{ ...step, expect: { status: 200, body: { id: "id-{{uuid}}" } } }] },
      "a matcher must be the whole value",
    ],
    ["a body and raw together", { description: "d", steps: [{ ...step, request: { ...step.request, raw: "x" } }] }, "body goes alone"],
    ["a lead and a body together", { description: "d", steps: [{ ...step, request: { ...step.request, lead: {} } }] }, "body goes alone"],
    [
      "without, but no lead",
      { description: "d", steps: [{ ...step, request: { method: "POST", path: "/v1/postLead", without: ["zip"] } }] },
      "without goes with lead",
    ],
    [
      "without names no field",
      { description: "d", steps: [{ ...step, request: { method: "POST", path: "/v1/postLead", lead: {}, without: ["zipp"] } }] },
      "zipp is not a field of the lead",
    ],
    ["two step modes", { description: "d", steps: [{ ...step, poll: true, repeat: { until: 429, max: 5 } }] }, "at most one of concurrent, repeat, poll"],
    [
      "counts that do not add up",
      { description: "d", steps: [{ ...step, concurrent: 3, expect: { statusCounts: { "200": 1 } } }] },
      "must add up to concurrent (3)",
    ],
    ["a status out of range", { description: "d", steps: [{ ...step, expect: { status: 42, body: {} } }] }, "status must be a whole number from 100 to 599"],
    [
      "a cooldown that is not a duration",
      { description: "d", steps: [{ ...step, repeat: { until: 429, max: 5, cooldown: "soon" } }] },
      "repeat.cooldown: expected a duration",
    ],
    ["an expectation without body", { description: "d", steps: [{ ...step, expect: { status: 200 } }] }, "expect.body is required"],
    [
      "a policy the service would refuse, by its path",
      { description: "d", policy: { caps: [{ name: "c", counts: "leads", max: 1, per: "fortnight" }] }, steps: [step] },
      "policy/caps/0/per: must be one of",
    ],
    ["a check answer that is not an object", { description: "d", checks: ["pass"], steps: [step] }, "checks[0] must be an object"],
    ["a policy that is not an object", { description: "d", policy: [], steps: [step] }, "policy must be an object"],
    [
      "an unknown placeholder in a policy",
      { description: "d", policy: { rules: [{ name: "{{nope}}", require: { field: "state", op: "blank" } }] }, steps: [step] },
      "the case.policy.rules[0].name: unknown placeholder {{nope}}",
    ],
  ])("refuses %s", (_name, data, message) => {
    expect(() => parse(data)).toThrow(message);
  });

  test("a bad file is reported with its path", () => {
    const dir = mkdtempSync(join(tmpdir(), "replay-fixtures-"));
    try {
      mkdirSync(join(dir, "a"));
      writeFileSync(join(dir, "a/broken.json"), "{ not json");
      expect(() => loadFixtures(dir)).toThrow(FixtureError);
      expect(() => loadFixtures(dir)).toThrow(`${join(dir, "a/broken.json")}: not valid JSON`);
      expect(() => loadFixtures(join(dir, "missing"))).toThrow("Cannot read fixtures folder");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("building requests", () => {
  const target: Target = { url: "http://127.0.0.1:1", vendor: { user: "vendor-a", password: "secret-1" }, timeoutMs: 1000 };
  const headersOf = (request: Parameters<typeof buildRequest>[0]) => new Headers(buildRequest(request, target).init.headers);

  test("auth: the vendor by default, none, explicit credentials, or a raw header", () => {
    expect(headersOf({ method: "GET", path: "/x" }).get("authorization")).toBe(`Basic ${btoa("vendor-a:secret-1")}`);
    expect(headersOf({ method: "GET", path: "/x", auth: "none" }).has("authorization")).toBe(false);
    expect(headersOf({ method: "GET", path: "/x", auth: { user: "u", password: "p" } }).get("authorization")).toBe(`Basic ${btoa("u:p")}`);
    expect(headersOf({ method: "GET", path: "/x", auth: "raw:Bearer abc" }).get("authorization")).toBe("Bearer abc");
    expect(() => headersOf({ method: "GET", path: "/x", auth: "other-vendor" })).toThrow("--other-user");
  });

  test("a body goes as JSON unless the case says otherwise; content-type null sends bytes with no type", () => {
    expect(headersOf({ method: "POST", path: "/x", body: {} }).get("content-type")).toBe("application/json");
    expect(headersOf({ method: "POST", path: "/x", body: {}, headers: { "content-type": "application/x-www-form-urlencoded" } }).get("content-type")).toBe(
      "application/x-www-form-urlencoded",
    );
    const untyped = buildRequest({ method: "POST", path: "/x", body: { a: 1 }, headers: { "content-type": null } }, target).init;
    expect(new Headers(untyped.headers).has("content-type")).toBe(false);
    expect(new TextDecoder().decode(untyped.body as Uint8Array)).toBe('{"a":1}');
  });

  test("bodyBytes makes a body of exactly that many bytes: valid JSON alone, or raw padded with spaces", () => {
    for (const size of [16, 1000, 70_000]) {
      expect(Buffer.byteLength(paddedBody(size))).toBe(size);
      expect(JSON.parse(paddedBody(size))).toBeObject();
    }
    const padded = buildRequest({ method: "POST", path: "/x", raw: "{nö", bodyBytes: 100 }, target).init.body as string;
    expect(Buffer.byteLength(padded)).toBe(100);
    expect(padded).toStartWith("{nö ");
  });
});
