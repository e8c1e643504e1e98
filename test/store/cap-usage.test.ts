// The cap counters (store/cap-usage): one atomic statement takes a slot while below the max, on
// both databases; a rolled-back transaction keeps none; ended windows are purged.
import { expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { capUse } from "../../src/operations/cap-use.ts";
import { calendarWindow, compilePolicy } from "../../src/policy/index.ts";
import type { CapCounter } from "../../src/store/cap-usage/index.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";

const counter = (over: Partial<CapCounter> = {}): CapCounter => ({ name: "daily", bucket: "", windowStart: 1_000, windowEnd: 2_000, max: 3, ...over });

describeOnBothBackends("cap_usage table", (backend) => {
  test("takes a slot while below the max, then answers full and changes nothing", async () => {
    const taken = [];
    for (let i = 0; i < 5; i++) taken.push(await backend.store.write((t) => op(t.capUsage.take(counter()))));
    expect(taken).toEqual([true, true, true, false, false]);
    expect(await backend.store.read((t) => op(t.capUsage.used(counter())))).toBe(3);
    expect(await backend.rows("SELECT cap_name, bucket, window_start, window_end, used FROM cap_usage")).toEqual([
      { cap_name: "daily", bucket: "", window_start: 1_000, window_end: 2_000, used: 3 },
    ]);
  });

  test("max 0 takes nothing; buckets, windows and caps count apart; a lowered max refuses", async () => {
    expect(await backend.store.write((t) => op(t.capUsage.take(counter({ max: 0 }))))).toBe(false);
    expect(await backend.rows("SELECT count(*) AS n FROM cap_usage")).toEqual([{ n: 0 }]);
    for (const c of [counter({ bucket: "acme" }), counter({ bucket: "beta" }), counter({ windowStart: 2_000, windowEnd: 3_000 }), counter({ name: "other" })])
      expect(await backend.store.write((t) => op(t.capUsage.take({ ...c, max: 1 })))).toBe(true);
    expect(await backend.store.write((t) => op(t.capUsage.take(counter({ bucket: "acme" }))))).toBe(true);
    expect(await backend.store.write((t) => op(t.capUsage.take(counter({ bucket: "acme", max: 2 }))))).toBe(false);
    expect(await backend.store.write((t) => op(t.capUsage.take(counter({ bucket: "acme", max: 1 }))))).toBe(false);
    expect(await backend.store.read((t) => op(t.capUsage.inWindow("daily", 1_000)))).toEqual([
      { capName: "daily", bucket: "acme", windowStart: 1_000, used: 2 },
      { capName: "daily", bucket: "beta", windowStart: 1_000, used: 1 },
    ]);
  });

  test("a slot taken in a transaction that fails is not kept", async () => {
    await backend.store.write((t) => op(t.capUsage.take(counter())));
    const failing = Promise.resolve().then(() =>
      backend.store.write(function* (t) {
        yield* op(t.capUsage.take(counter()));
        throw new Error("refused later");
      }),
    );
    await expect(failing).rejects.toThrow("refused later");
    expect(await backend.store.read((t) => op(t.capUsage.used(counter())))).toBe(1);
  });

  test("concurrent takers of 2 free slots: exactly 2 get one", async () => {
    await backend.store.write((t) => op(t.capUsage.take(counter({ max: 3 }))));
    const taken = await Promise.all(Array.from({ length: 10 }, () => backend.store.write((t) => op(t.capUsage.take(counter({ max: 3 }))))));
    expect(taken.filter(Boolean)).toHaveLength(2);
    expect(await backend.store.read((t) => op(t.capUsage.used(counter())))).toBe(3);
  });

  test("the purge forgets counters whose window ended, in chunks", async () => {
    for (let i = 0; i < 3; i++) await backend.store.write((t) => op(t.capUsage.take(counter({ windowStart: i * 1_000, windowEnd: (i + 1) * 1_000 }))));
    expect(await backend.store.write((t) => op(t.capUsage.purgeEnded(2_000, 1)))).toBe(1);
    expect(await backend.store.write((t) => op(t.capUsage.purgeEnded(2_000, 10)))).toBe(1);
    expect(await backend.rows("SELECT window_start FROM cap_usage")).toEqual([{ window_start: 2_000 }]);
  });

  test("capUse: each enabled cap's use in its current window, per bucket, with its max", async () => {
    const policy = compilePolicy({
      caps: [
        { name: "together", counts: "leads", max: 5, per: "day", time_zone: "America/New_York" },
        { name: "per-vendor", counts: "pings", max: 2, per: "hour", each: "vendor" },
        { name: "off", counts: "leads", max: 1, per: "day", enabled: false },
      ],
    });
    const now = Date.UTC(2026, 5, 1, 15, 30);
    const day = calendarWindow("day", now, "America/New_York");
    const hour = calendarWindow("hour", now, "UTC");
    await backend.store.write((t) => op(t.capUsage.take({ name: "per-vendor", bucket: "beta", windowStart: hour.start, windowEnd: hour.end, max: 2 })));
    await backend.store.write((t) => op(t.capUsage.take({ name: "per-vendor", bucket: "acme", windowStart: hour.start, windowEnd: hour.end, max: 2 })));
    await backend.store.write((t) =>
      op(t.capUsage.take({ name: "per-vendor", bucket: "acme", windowStart: hour.start - 3_600_000, windowEnd: hour.start, max: 2 })),
    );
    expect(await capUse(backend.store, policy, now)).toEqual([
      { cap: "together", counts: "leads", bucket: "", used: 0, max: 5, windowStart: day.start, windowEnd: day.end },
      { cap: "per-vendor", counts: "pings", bucket: "acme", used: 1, max: 2, windowStart: hour.start, windowEnd: hour.end },
      { cap: "per-vendor", counts: "pings", bucket: "beta", used: 1, max: 2, windowStart: hour.start, windowEnd: hour.end },
    ]);
  });
});
