// The nesting a request body may have (docs/contract.md §4): objects and arrays open at once, the
// body's own object being level 1, measured on the text without recursion and without counting
// brackets inside strings.
import { describe, expect, test } from "bun:test";
import { MAX_BODY_NESTING, nestsDeeperThan } from "../../src/http/json-nesting.ts";
import { nestedArrays, nestedJson, randomJsonValue } from "../helpers/nested-json.ts";

/** The nesting of a parsed value, the way the rule defines it (recursive: the test's values are shallow). */
function depthOf(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  const children = Object.values(value);
  return 1 + children.reduce((deepest: number, child) => Math.max(deepest, depthOf(child)), 0);
}

describe("nestsDeeperThan", () => {
  test("the limit is 32 levels", () => {
    expect(MAX_BODY_NESTING).toBe(32);
  });

  test("a body at the limit passes; one level more does not", () => {
    for (const levels of [1, 2, 31, 32]) expect([levels, nestsDeeperThan(nestedJson(levels), 32)]).toEqual([levels, false]);
    expect(nestsDeeperThan(nestedJson(33), 32)).toBe(true);
    expect(nestsDeeperThan(nestedArrays(33), 32)).toBe(true);
    expect(nestsDeeperThan(nestedArrays(32), 32)).toBe(false);
  });

  test("the body's own object is level 1; siblings do not add up", () => {
    expect(nestsDeeperThan("{}", 0)).toBe(true);
    expect(nestsDeeperThan("{}", 1)).toBe(false);
    expect(nestsDeeperThan('{"extra_data":{"a":[1]}}', 2)).toBe(true);
    expect(nestsDeeperThan('{"extra_data":{"a":[1]}}', 3)).toBe(false);
    const wide = `{"a":[${Array.from({ length: 100 }, () => nestedJson(30)).join(",")}]}`;
    expect(nestsDeeperThan(wide, 32)).toBe(false);
  });

  test("brackets inside strings are not counted, escaped quotes and backslashes included", () => {
    const brackets = "[{".repeat(100);
    expect(nestsDeeperThan(JSON.stringify({ extra_data: { note: brackets } }), 32)).toBe(false);
    expect(nestsDeeperThan(JSON.stringify({ [brackets]: `"${brackets}\\"${brackets}\\` }), 32)).toBe(false);
    // A string that ends in a backslash: the brackets after it are outside any string and count.
    expect(nestsDeeperThan(`{"a":"x\\\\","b":${nestedJson(32)}}`, 32)).toBe(true);
    expect(nestsDeeperThan(`{"a":"x\\\\","b":${nestedJson(31)}}`, 32)).toBe(false);
  });

  test("agrees with the nesting of the parsed value on random JSON with hostile strings", () => {
    for (let i = 0; i < 2_000; i++) {
      const value = randomJsonValue(40);
      const text = JSON.stringify(value, null, i % 2 === 0 ? undefined : 1);
      const limit = Math.floor(Math.random() * 40);
      expect([text, nestsDeeperThan(text, limit)]).toEqual([text, depthOf(value) > limit]);
    }
  });

  test("any depth is measured without growing the stack: two million levels in a 4 MiB text", () => {
    const levels = 2_000_000;
    expect(nestsDeeperThan(nestedArrays(levels), 32)).toBe(true);
    expect(nestsDeeperThan(nestedArrays(levels), levels)).toBe(false);
  });

  test("text that is not JSON gets an answer, never an exception or a hang", () => {
    for (const text of ['"unterminated [[[[', "]]]]", '{"a":"\\', "", "[".repeat(10)]) expect(typeof nestsDeeperThan(text, 32)).toBe("boolean");
  });
});
