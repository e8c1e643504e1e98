// Intake's cap helpers (intake/caps.ts): the order every writer takes counters in, the refusal of
// full caps in the document's order, and the counters a process saw full (use never goes down in
// a window, so a counter seen full at max M stays full for any max up to M until its window ends).
import { expect, test } from "bun:test";
import { cappedAmong, counterOrder, FullCountersSeen } from "../../src/intake/caps.ts";
import type { CapToTake } from "../../src/intake/policy-port.ts";

const cap = (name: string, over: Partial<CapToTake> = {}): CapToTake => ({
  name,
  bucket: "",
  windowStart: 1_000,
  windowEnd: 2_000,
  max: 5,
  reason: `${name} full`,
  retryAfterSeconds: 60,
  ...over,
});

test("counters are taken by name, bucket and window: one order for every writer", () => {
  const caps = [cap("b"), cap("a", { bucket: "z" }), cap("a", { bucket: "m", windowStart: 3_000 }), cap("a", { bucket: "m" })];
  expect([...caps].sort(counterOrder).map((c) => `${c.name}/${c.bucket}/${c.windowStart}`)).toEqual(["a/m/1000", "a/m/3000", "a/z/1000", "b//1000"]);
});

test("the refusal of full caps keeps the document's order and the latest window's Retry-After", () => {
  const caps = [cap("daily", { retryAfterSeconds: 600 }), cap("hourly", { max: 2, retryAfterSeconds: 60 }), cap("weekly", { retryAfterSeconds: 6_000 })];
  expect(cappedAmong(caps, [4, 2, 5])).toEqual({
    kind: "capped",
    reasons: ["hourly full", "weekly full"],
    retryAfterSeconds: 6_000,
    refusedBy: [
      { kind: "cap", name: "hourly" },
      { kind: "cap", name: "weekly" },
    ],
    full: [caps[1]!, caps[2]!],
  });
  expect(cappedAmong(caps, [4, 1, 4])).toBeNull();
});

test("a counter seen full stays full for its max or a lower one, not a raised one, another bucket or another window", () => {
  const seen = new FullCountersSeen();
  const full = cap("daily", { bucket: "acme", max: 5 });
  expect(seen.anyFull([full])).toBe(false);
  seen.record(cappedAmong([full], [5])!, 1_500);
  expect(seen.anyFull([full])).toBe(true);
  expect(seen.anyFull([cap("daily", { bucket: "acme", max: 3 })])).toBe(true);
  expect(seen.anyFull([cap("daily", { bucket: "acme", max: 6 })])).toBe(false);
  expect(seen.anyFull([cap("daily", { bucket: "beta", max: 5 })])).toBe(false);
  expect(seen.anyFull([cap("daily", { bucket: "acme", windowStart: 2_000, windowEnd: 3_000 })])).toBe(false);
  expect(seen.anyFull([cap("other"), full])).toBe(true);
});

test("past its limit, what it saw of ended windows is forgotten first", () => {
  const seen = new FullCountersSeen();
  const ended = cap("daily", { bucket: "ended", windowStart: 0, windowEnd: 1_000 });
  seen.record(cappedAmong([ended], [5])!, 500);
  const live = Array.from({ length: 4_095 }, (_, i) => cap("daily", { bucket: `v${i}` }));
  for (const c of live) seen.record(cappedAmong([c], [5])!, 1_500);
  expect(seen.anyFull([ended])).toBe(true);
  seen.record(cappedAmong([cap("daily", { bucket: "one-more" })], [5])!, 1_500);
  expect(seen.anyFull([ended])).toBe(false);
  expect(seen.anyFull([live[0]!])).toBe(true);
});
