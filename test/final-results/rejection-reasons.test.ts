import { describe, expect, test } from "bun:test";
import { reasonsOf, storedReasons } from "../../src/contract/rejection-reasons.ts";

describe("a rejected lead's reasons in its one rejection_reason column", () => {
  test("one reason is stored as its text, as before final rules, and reads back", () => {
    expect(storedReasons(["Rejected by operator."])).toBe("Rejected by operator.");
    expect(reasonsOf("Rejected by operator.")).toEqual(["Rejected by operator."]);
    expect(reasonsOf(null)).toEqual([]);
  });

  test("several are stored as a JSON array and read back in order", () => {
    const stored = storedReasons(["Income too low: 1000", "Not a home owner"]);
    expect(stored).toBe('["Income too low: 1000","Not a home owner"]');
    expect(reasonsOf(stored)).toEqual(["Income too low: 1000", "Not a home owner"]);
  });

  test("a lone reason that reads like a list stays one reason", () => {
    const odd = '["a","b"]';
    expect(reasonsOf(storedReasons([odd]))).toEqual([odd]);
    expect(reasonsOf("[not json")).toEqual(["[not json"]);
  });
});
