// The phone claims on an in-memory database: one claim per number, taken over only once it is older
// than the window, never for a suppressed number; renewed or dropped only by the lead that holds it.
import { beforeEach, expect, test } from "bun:test";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import type { Tables } from "../../src/store/index.ts";
import { now, tablesOf } from "../helpers/tables.ts";

const PHONE = "+12125551234";
let database: DatabaseHandle;
let t: Tables;
const claimOf = () => database.sqlite.query("SELECT lead_id, claimed_at FROM phone_claims").all();

beforeEach(() => {
  database = openDatabase(":memory:");
  t = tablesOf(database.db);
});

test("claim takes a free number, refuses it under a live claim, and takes over a claim older than the cutoff", () => {
  expect(now(t.phoneClaims.claim(PHONE, "lead-1", 100, 0))).toBe(true);
  expect(now(t.phoneClaims.claim(PHONE, "lead-2", 150, 99))).toBe(false);
  expect(claimOf()).toEqual([{ lead_id: "lead-1", claimed_at: 100 }]);
  expect(now(t.phoneClaims.claim(PHONE, "lead-3", 200, 100))).toBe(true);
  expect(claimOf()).toEqual([{ lead_id: "lead-3", claimed_at: 200 }]);
});

test("claim refuses a suppressed number, and writes nothing", () => {
  now(t.suppressions.add({ phoneE164: PHONE, reason: null, createdAt: 0 }));
  expect(now(t.phoneClaims.claim(PHONE, "lead-1", 100, 0))).toBe(false);
  expect(claimOf()).toEqual([]);
});

test("isHeldSince and holderOf", () => {
  expect(now(t.phoneClaims.holderOf(PHONE))).toBeNull();
  now(t.phoneClaims.claim(PHONE, "lead-1", 100, 0));
  expect(now(t.phoneClaims.isHeldSince(PHONE, 99))).toBe(true);
  expect(now(t.phoneClaims.isHeldSince(PHONE, 100))).toBe(false);
  expect(now(t.phoneClaims.isHeldSince("+12125550000", 0))).toBe(false);
  expect(now(t.phoneClaims.holderOf(PHONE))).toBe("lead-1");
});

test("renew and drop change the claim only for the lead that holds it", () => {
  now(t.phoneClaims.claim(PHONE, "lead-1", 100, 0));
  now(t.phoneClaims.renew(PHONE, "lead-2", 500));
  now(t.phoneClaims.drop(PHONE, "lead-2"));
  expect(claimOf()).toEqual([{ lead_id: "lead-1", claimed_at: 100 }]);
  now(t.phoneClaims.renew(PHONE, "lead-1", 500));
  expect(claimOf()).toEqual([{ lead_id: "lead-1", claimed_at: 500 }]);
  now(t.phoneClaims.drop(PHONE, "lead-1"));
  expect(claimOf()).toEqual([]);
});
