// Idempotency keys, on both backends: found while fresh, replaced once expired, purged in chunks.
import { expect, test } from "bun:test";
import { WriteConflict } from "../../src/store/index.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";

const key = (name: string, leadId = "lead-1") => ({ vendorId: "vendor-a", key: name, requestHash: `hash-${leadId}`, leadId });

describeOnBothBackends("idempotency keys", (backend) => {
  test("find answers a key saved after the cutoff, for its vendor only", async () => {
    const t = backend.tables;
    await t.idempotencyKeys.save(key("k1"), 100, 0);
    expect(await t.idempotencyKeys.find("vendor-a", "k1", 99)).toEqual({ requestHash: "hash-lead-1", leadId: "lead-1" });
    expect(await t.idempotencyKeys.find("vendor-a", "k1", 100)).toBeUndefined();
    expect(await t.idempotencyKeys.find("vendor-b", "k1", 0)).toBeUndefined();
  });

  test("saving an expired key again replaces the old row", async () => {
    const t = backend.tables;
    await t.idempotencyKeys.save(key("k1"), 100, 0);
    await t.idempotencyKeys.save(key("k1", "lead-2"), 200, 100);
    expect(await t.idempotencyKeys.find("vendor-a", "k1", 150)).toEqual({ requestHash: "hash-lead-2", leadId: "lead-2" });
  });

  test("saving over a key saved since the expiry (by a concurrent request) is a write conflict, and keeps the saved one", async () => {
    const t = backend.tables;
    await t.idempotencyKeys.save(key("k1"), 100, 0);
    await expect((async () => t.idempotencyKeys.save(key("k1", "lead-2"), 200, 99))()).rejects.toThrow(WriteConflict);
    expect(await t.idempotencyKeys.find("vendor-a", "k1", 0)).toEqual({ requestHash: "hash-lead-1", leadId: "lead-1" });
  });

  test("purge forgets at most `limit` keys older than the cutoff, and answers how many", async () => {
    const t = backend.tables;
    for (let i = 0; i < 5; i++) await t.idempotencyKeys.save(key(`old-${i}`), 100, 0);
    await t.idempotencyKeys.save(key("fresh"), 300, 0);
    expect(await t.idempotencyKeys.purge(200, 3)).toBe(3);
    expect(await t.idempotencyKeys.purge(200, 3)).toBe(2);
    expect(await t.idempotencyKeys.purge(200, 3)).toBe(0);
    expect(await t.idempotencyKeys.find("vendor-a", "fresh", 0)).toBeDefined();
  });
});
