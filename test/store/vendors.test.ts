// The vendors table on an in-memory database.
import { beforeEach, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import type { Tables } from "../../src/store/index.ts";
import { now, tablesOf, vendorRow } from "../helpers/tables.ts";

let t: Tables;

beforeEach(() => {
  t = tablesOf(openDatabase(":memory:").db);
});

test("insert adds a vendor once: a taken name answers false", () => {
  expect(now(t.vendors.insert(vendorRow("acme")))).toBe(true);
  expect(now(t.vendors.insert({ ...vendorRow("acme"), id: "another-id" }))).toBe(false);
  expect(now(t.vendors.list()).map((v) => v.id)).toEqual(["acme"]);
});

test("credentialsOf gives the authenticator's domain shape; an unknown name is null", () => {
  now(t.vendors.insert(vendorRow("acme")));
  expect(now(t.vendors.credentialsOf("acme"))).toEqual({ id: "acme", name: "acme", passwordHash: "not-a-real-hash", enabled: true });
  expect(now(t.vendors.credentialsOf("nobody"))).toBeNull();
});

test("setEnabled, setPasswordHash and setSigningSecret change their field and the update time", () => {
  now(t.vendors.insert(vendorRow("acme")));
  now(t.vendors.setEnabled("acme", false, 10));
  now(t.vendors.setPasswordHash("acme", "new-hash", 20));
  now(t.vendors.setSigningSecret("acme", "whsec_new", 30));
  expect(now(t.vendors.findByName("acme"))).toMatchObject({ enabled: false, passwordHash: "new-hash", signingSecret: "whsec_new", updatedAt: 30 });
  expect(now(t.vendors.credentialsOf("acme"))).toMatchObject({ enabled: false });
});
