// The suppression list, on both backends.
import { expect, test } from "bun:test";
import { describeOnBothBackends } from "../helpers/store-backends.ts";

const entry = (phoneE164: string, reason: string | null = null) => ({ phoneE164, reason, createdAt: 5 });

describeOnBothBackends("suppressions", (backend) => {
  test("add lists a number once; remove unlists it once", async () => {
    const t = backend.tables;
    expect(await t.suppressions.add(entry("+12125551234", "asked"))).toBe(true);
    expect(await t.suppressions.add(entry("+12125551234", "again"))).toBe(false);
    expect(await t.suppressions.isListed("+12125551234")).toBe(true);
    expect(await t.suppressions.remove("+12125551234")).toBe(true);
    expect(await t.suppressions.remove("+12125551234")).toBe(false);
    expect(await t.suppressions.isListed("+12125551234")).toBe(false);
  });

  test("list gives every entry by number, with its first reason", async () => {
    const t = backend.tables;
    await t.suppressions.add(entry("+13125550000"));
    await t.suppressions.add(entry("+12125551234", "asked"));
    await t.suppressions.add(entry("+12125551234", "later"));
    expect(await t.suppressions.list()).toEqual([entry("+12125551234", "asked"), entry("+13125550000")]);
    expect(await t.suppressions.list(1)).toEqual([entry("+12125551234", "asked")]);
  });

  test("find gives one number's entry, or null", async () => {
    const t = backend.tables;
    await t.suppressions.add(entry("+12125551234", "asked"));
    expect(await t.suppressions.find("+12125551234")).toEqual(entry("+12125551234", "asked"));
    expect(await t.suppressions.find("+13125550000")).toBeNull();
  });
});
