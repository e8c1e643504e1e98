// The suppression list on an in-memory database.
import { beforeEach, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import type { Tables } from "../../src/store/index.ts";
import { now, tablesOf } from "../helpers/tables.ts";

let t: Tables;
const entry = (phoneE164: string, reason: string | null = null) => ({ phoneE164, reason, createdAt: 5 });

beforeEach(() => {
  t = tablesOf(openDatabase(":memory:").db);
});

test("add lists a number once; remove unlists it once", () => {
  expect(now(t.suppressions.add(entry("+12125551234", "asked")))).toBe(true);
  expect(now(t.suppressions.add(entry("+12125551234", "again")))).toBe(false);
  expect(now(t.suppressions.isListed("+12125551234"))).toBe(true);
  expect(now(t.suppressions.remove("+12125551234"))).toBe(true);
  expect(now(t.suppressions.remove("+12125551234"))).toBe(false);
  expect(now(t.suppressions.isListed("+12125551234"))).toBe(false);
});

test("list gives every entry by number, with its first reason", () => {
  now(t.suppressions.add(entry("+13125550000")));
  now(t.suppressions.add(entry("+12125551234", "asked")));
  now(t.suppressions.add(entry("+12125551234", "later")));
  expect(now(t.suppressions.list())).toEqual([entry("+12125551234", "asked"), entry("+13125550000")]);
});
