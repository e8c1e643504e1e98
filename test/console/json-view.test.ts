// Stored JSON as the console and the CLI show it: indented like JSON.stringify(…, null, 2) for any
// value a body may hold today, and bounded in size (with a note of what was left out) for any
// value at all, a lead stored before the nesting limit tens of thousands of levels deep included.
import { describe, expect, test } from "bun:test";
import { clipped, INDENTED_LEVELS, indentedJson, truncationNote, viewText } from "../../src/console/json-view.ts";
import { nestedArrays, nestedJson, randomJsonValue } from "../helpers/nested-json.ts";

const BUDGET = 64 * 1024;

describe("indentedJson", () => {
  test("indents as JSON.stringify(value, null, 2) does, from compact or spaced text", () => {
    const value = {
      phone_number: "(212) 555-0123",
      extra_data: [{ note: 'brackets [{ and "quotes" and \\ in text', empty: {}, none: [], n: -1.5e-7, t: true, z: null }],
      'key with "quote"': "é😀",
      nested: JSON.parse(nestedJson(INDENTED_LEVELS - 1)),
    };
    const expected = JSON.stringify(value, null, 2);
    for (const stored of [JSON.stringify(value), JSON.stringify(value, null, "\t"), JSON.stringify(value, null, 1).replaceAll("\n", "\r\n")]) {
      expect(indentedJson(stored, BUDGET)).toEqual({ text: expected, omittedBytes: 0 });
    }
  });

  test("agrees with JSON.stringify(value, null, 2) on random values of up to 32 levels", () => {
    for (let i = 0; i < 2_000; i++) {
      const value = { body: randomJsonValue(INDENTED_LEVELS - 1) };
      const stored = JSON.stringify(value, null, i % 2);
      expect([stored, indentedJson(stored, BUDGET).text]).toEqual([stored, JSON.stringify(value, null, 2)]);
    }
  });

  test("keeps each value spelled as stored (numbers, escapes), as a raw request is", () => {
    expect(indentedJson('{"a":1.50,"b":"\\u0041\\/","c":[ ]}', BUDGET).text).toBe('{\n  "a": 1.50,\n  "b": "\\u0041\\/",\n  "c": []\n}');
  });

  test("levels past the indented ones are written on one line", () => {
    const stored = `{"a":${nestedArrays(INDENTED_LEVELS + 2)}}`;
    const lines = indentedJson(stored, BUDGET).text.split("\n");
    // Levels 1 (the body) to INDENTED_LEVELS open a line each; the three levels past them share one.
    expect(lines[INDENTED_LEVELS]).toBe(`${"  ".repeat(INDENTED_LEVELS)}[[[]]]`);
    expect(lines).toHaveLength(2 * INDENTED_LEVELS + 1);
    expect(lines.at(-1)).toBe("}");
  });

  test("a value 32,000 levels deep: a view within the budget, and a note of the bytes left out", () => {
    const stored = `{"extra_data":${nestedJson(32_000)}}`;
    const view = indentedJson(stored, BUDGET);
    expect(view.text.length).toBeLessThanOrEqual(BUDGET);
    expect(view.text.length).toBeGreaterThan(BUDGET - 100);
    expect(view.omittedBytes).toBeGreaterThan(0);
    expect(view.omittedBytes).toBeLessThan(Buffer.byteLength(stored));
    expect(viewText(view)).toEndWith(`\n${truncationNote(view.omittedBytes)}`);
    expect(truncationNote(1_234_567)).toBe("… truncated, 1,234,567 more bytes not shown");
  });

  test("two million levels in 4 MiB: bounded too, without growing the stack", () => {
    const view = indentedJson(nestedArrays(2_000_000), BUDGET);
    expect(view.text.length).toBeLessThanOrEqual(BUDGET);
    expect(view.omittedBytes).toBeGreaterThan(3_900_000);
  });

  test("a long string is cut inside, and the bytes after the cut are counted", () => {
    const stored = JSON.stringify({ a: "é".repeat(10_000) });
    const view = indentedJson(stored, 1_000);
    expect(view.text).toBe(`{\n  "a": "${"é".repeat(1_000 - 10)}`);
    expect(view.omittedBytes).toBe(Buffer.byteLength(`${"é".repeat(10_000 - 990)}"}`));
  });

  test("text that is not a JSON object or array is shown as stored, cut at the budget", () => {
    expect(indentedJson("not json", BUDGET)).toEqual({ text: "not json", omittedBytes: 0 });
    expect(indentedJson("x".repeat(100), 10)).toEqual({ text: "x".repeat(10), omittedBytes: 90 });
    for (const broken of ['{"a":', "]]]]", '{"a":"unterminated', "[".repeat(100)]) expect(typeof indentedJson(broken, BUDGET).text).toBe("string");
  });
});

describe("clipped", () => {
  test("short text whole; long text cut, never between the halves of a surrogate pair", () => {
    expect(clipped("abc", 3)).toEqual({ text: "abc", omittedBytes: 0 });
    expect(clipped("ab😀c", 3)).toEqual({ text: "ab", omittedBytes: 5 });
    expect(viewText(clipped("abcdef", 2))).toBe(`ab\n${truncationNote(4)}`);
  });
});
