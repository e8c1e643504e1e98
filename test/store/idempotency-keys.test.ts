// Idempotency keys on an in-memory database: found while fresh, replaced once expired, purged in chunks.
import { beforeEach, expect, test } from "bun:test";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import type { Tables } from "../../src/store/index.ts";
import { now, tablesOf } from "../helpers/tables.ts";

let database: DatabaseHandle;
let t: Tables;
const key = (name: string, leadId = "lead-1") => ({ vendorId: "vendor-a", key: name, requestHash: `hash-${leadId}`, leadId });

beforeEach(() => {
  database = openDatabase(":memory:");
  t = tablesOf(database.db);
});

test("find answers a key saved after the cutoff, for its vendor only", () => {
  now(t.idempotencyKeys.save(key("k1"), 100));
  expect(now(t.idempotencyKeys.find("vendor-a", "k1", 99))).toEqual({ requestHash: "hash-lead-1", leadId: "lead-1" });
  expect(now(t.idempotencyKeys.find("vendor-a", "k1", 100))).toBeUndefined();
  expect(now(t.idempotencyKeys.find("vendor-b", "k1", 0))).toBeUndefined();
});

test("saving a key again replaces the old row", () => {
  now(t.idempotencyKeys.save(key("k1"), 100));
  now(t.idempotencyKeys.save(key("k1", "lead-2"), 200));
  expect(now(t.idempotencyKeys.find("vendor-a", "k1", 150))).toEqual({ requestHash: "hash-lead-2", leadId: "lead-2" });
});

test("purge forgets at most `limit` keys older than the cutoff, and answers how many", () => {
  for (let i = 0; i < 5; i++) now(t.idempotencyKeys.save(key(`old-${i}`), 100));
  now(t.idempotencyKeys.save(key("fresh"), 300));
  expect(now(t.idempotencyKeys.purge(200, 3))).toBe(3);
  expect(now(t.idempotencyKeys.purge(200, 3))).toBe(2);
  expect(now(t.idempotencyKeys.purge(200, 3))).toBe(0);
  expect(now(t.idempotencyKeys.find("vendor-a", "fresh", 0))).toBeDefined();
});
