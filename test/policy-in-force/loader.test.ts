// The policy in force on an instance: loaded at start, recompiled only when the stored version
// moves, and kept when a reload fails.
import { expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import { EMPTY_POLICY, loadPolicyInForce } from "../../src/policy-in-force/loader.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { storeOn } from "../../src/store/sqlite.ts";

const RULE = { rules: [{ name: "ca-only", require: { field: "state", op: "equals" as const, value: "CA" } }] };

test("empty until a document is imported; the same compiled policy until the version moves", async () => {
  const database = openDatabase(":memory:");
  const store = storeOn(database.db);
  const inForce = await loadPolicyInForce(store, { reloadMs: 60_000 });
  try {
    expect(inForce.current()).toBe(EMPTY_POLICY);
    expect(inForce.version()).toBe(0);
    await importPolicy(store, JSON.stringify(RULE), "cli:test");
    expect(inForce.current()).toBe(EMPTY_POLICY); // until the next reload
    await inForce.refresh();
    const compiled = inForce.current();
    expect(compiled.document).toEqual(RULE);
    expect(inForce.version()).toBe(1);
    await inForce.refresh();
    expect(inForce.current()).toBe(compiled);
    await importPolicy(store, JSON.stringify(RULE), "cli:test");
    await inForce.refresh();
    expect(inForce.current()).not.toBe(compiled);
    expect(inForce.version()).toBe(2);
  } finally {
    inForce.stop();
    database.close();
  }
});

test("reloads by itself every reloadMs; a failed reload keeps the policy in force and is reported once", async () => {
  const database = openDatabase(":memory:");
  const store = storeOn(database.db);
  const errors: unknown[] = [];
  const inForce = await loadPolicyInForce(store, { reloadMs: 20, onError: (error) => errors.push(error) });
  try {
    await importPolicy(store, JSON.stringify(RULE), "cli:test");
    await Bun.sleep(100);
    expect(inForce.version()).toBe(1);
    const compiled = inForce.current();
    database.sqlite.run("UPDATE policy SET version = 7, document = '{\"rules\": 1}'");
    await Bun.sleep(100);
    expect(inForce.current()).toBe(compiled);
    expect(errors).toHaveLength(1);
    expect(String(errors[0])).toContain("/rules");
  } finally {
    inForce.stop();
    database.close();
  }
});
