// The replay's matchers and exact JSON comparison.
import { describe, expect, test } from "bun:test";
import { findHeaderMismatch, findMismatch, isMatcher, matchesText } from "../../src/replay/match.ts";

describe("matchers", () => {
  test.each([
    ["{{any}}", null, true],
    ["{{any}}", { deep: [1] }, true],
    ["{{string}}", "", true],
    ["{{string}}", 1, false],
    ["{{number}}", 1.5, true],
    ["{{number}}", "1", false],
    ["{{uuid}}", "0193a5c2-7b1e-7c3d-8e4f-0123456789ab", true],
    ["{{uuid}}", "0193a5c2-7b1e-7c3d-8e4f-0123456789a", false],
    ["{{iso-date}}", "2026-11-21T10:00:00.000Z", true],
    ["{{iso-date}}", "2026-11-21 10:00:00", false],
    ["{{iso-date}}", "2026-13-45T10:00:00.000Z", false],
    ["{{regex:v1,.+}}", "v1,abc=", true],
    ["{{regex:\\d+}}", "a1", false], // the pattern must match the whole value
    ["{{regex:\\d+}}", 1, false],
  ] as const)("%s against %j → %p", (matcher, value, ok) => {
    expect(findMismatch(matcher, value) === null).toBe(ok);
  });

  test("only whole values are matchers", () => {
    expect(isMatcher("{{uuid}}")).toBe(true);
    expect(isMatcher("{{regex:a|b}}")).toBe(true);
    expect(isMatcher("id {{uuid}}")).toBe(false);
    expect(isMatcher("{{phone}}")).toBe(false);
    // Outside a matcher, "{{…}}" is literal text.
    expect(findMismatch("id {{uuid}}", "id 0193a5c2-7b1e-7c3d-8e4f-0123456789ab")).not.toBeNull();
  });
});

describe("exact JSON comparison", () => {
  const expected = { success_bit: false, message: [{ error: "Missing Field: city" }] };

  test("equal values match, key order aside", () => {
    expect(findMismatch(expected, { message: [{ error: "Missing Field: city" }], success_bit: false })).toBeNull();
  });

  test("a different value is reported with its position", () => {
    expect(findMismatch(expected, { success_bit: false, message: [{ error: "Missing Field: zip" }] })).toBe(
      'body.message[0].error: expected "Missing Field: city", got "Missing Field: zip"',
    );
  });

  test("an extra key fails: equality is exact", () => {
    expect(findMismatch(expected, { ...expected, lead_id: "x" })).toBe("body: unexpected key(s) lead_id");
  });

  test("a missing key fails, even when the expectation is {{any}}", () => {
    expect(findMismatch({ a: "{{any}}" }, {})).toBe("body.a: missing");
  });

  test("arrays must have the same length and order", () => {
    expect(findMismatch([1, 2], [1, 2, 3])).toStartWith("body: expected 2 item(s), got 3");
    expect(findMismatch([1, 2], [2, 1])).toBe("body[0]: expected 1, got 2");
  });

  test("types are not coerced", () => {
    expect(findMismatch({ n: 1 }, { n: "1" })).toBe('body.n: expected 1, got "1"');
    expect(findMismatch({ o: {} }, { o: [] })).toStartWith("body.o: expected an object");
    expect(findMismatch(null, undefined)).toBe("body: expected null, got nothing");
  });

  test("long strings that differ late are shown from where they differ", () => {
    const long = "x".repeat(500);
    expect(findMismatch(`${long}a`, `${long}b`)).toBe(`body: differs at character 500: expected …"${"x".repeat(20)}a", got …"${"x".repeat(20)}b"`);
  });
});

describe("headers", () => {
  const actual = (headers: Record<string, string>) => (name: string) => headers[name] ?? null;

  test("literal, matcher and absent expectations", () => {
    const got = actual({ allow: "POST", "retry-after": "3" });
    expect(findHeaderMismatch({ Allow: "POST", "retry-after": "{{regex:[1-9][0-9]*}}", "idempotent-replayed": null }, got)).toBeNull();
    expect(findHeaderMismatch({ allow: "GET" }, got)).toBe('header allow: expected "GET", got "POST"');
    expect(findHeaderMismatch({ "www-authenticate": "{{any}}" }, got)).toBe('header www-authenticate: missing (expected "{{any}}")');
    expect(findHeaderMismatch({ allow: null }, got)).toBe('header allow: expected absent, got "POST"');
  });

  test("matchesText compares literally unless given a matcher", () => {
    expect(matchesText("a.b", "aXb")).toBe(false);
    expect(matchesText("{{regex:a.b}}", "aXb")).toBe(true);
  });
});
