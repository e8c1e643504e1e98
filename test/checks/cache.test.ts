// The per-check, per-phone answer cache (src/checks/cache.ts): kept for its duration, per check and
// number, bounded (the oldest answer goes first).
import { expect, test } from "bun:test";
import { createAnswerCache } from "../../src/checks/index.ts";

const T0 = 1_000_000;
const FAIL = { outcome: "fail" as const, reason: "Known litigator" };

test("an answer is kept for its duration, and gone after", () => {
  const cache = createAnswerCache();
  cache.set("scrub", "+12125550123", FAIL, 60_000, T0);
  expect(cache.get("scrub", "+12125550123", T0 + 59_999)).toEqual(FAIL);
  expect(cache.get("scrub", "+12125550123", T0 + 60_000)).toBeUndefined();
  expect(cache.size()).toBe(0);
});

test("answers are kept per check and per phone number", () => {
  const cache = createAnswerCache();
  cache.set("scrub", "+12125550123", FAIL, 60_000, T0);
  expect(cache.get("dnc", "+12125550123", T0)).toBeUndefined();
  expect(cache.get("scrub", "+12125550124", T0)).toBeUndefined();
});

test("no duration keeps nothing", () => {
  const cache = createAnswerCache();
  cache.set("scrub", "+12125550123", FAIL, 0, T0);
  expect(cache.get("scrub", "+12125550123", T0)).toBeUndefined();
});

test("past its bound the oldest answer is dropped; an answer set again counts as new", () => {
  const cache = createAnswerCache({ maxEntries: 3 });
  for (const phone of ["1", "2", "3"]) cache.set("scrub", phone, { outcome: "pass", reason: phone }, 60_000, T0);
  cache.set("scrub", "1", { outcome: "pass", reason: "again" }, 60_000, T0);
  cache.set("scrub", "4", { outcome: "pass", reason: "4" }, 60_000, T0);
  expect(cache.size()).toBe(3);
  expect(cache.get("scrub", "2", T0)).toBeUndefined();
  expect(cache.get("scrub", "1", T0)).toEqual({ outcome: "pass", reason: "again" });
  expect(cache.get("scrub", "3", T0)).toBeDefined();
  expect(cache.get("scrub", "4", T0)).toBeDefined();
});
