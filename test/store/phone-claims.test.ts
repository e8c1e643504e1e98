// The phone claims, on both backends: one claim per number, taken over only once neither it nor a
// final acceptance of the number is newer than the cutoff, never for a suppressed number; dropped
// only by the lead that holds it.
import { expect, test } from "bun:test";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";

const PHONE = "+12125551234";
const HOLD = 60_000;

describeOnBothBackends("phone claims", (backend) => {
  const claimOf = () => backend.rows("SELECT lead_id, claimed_at FROM phone_claims");

  test("claim takes a free number, refuses it under a live claim, and takes over a claim older than the cutoff", async () => {
    const t = backend.tables;
    expect(await t.phoneClaims.claim(PHONE, "lead-1", 100, 0)).toBe(true);
    expect(await t.phoneClaims.claim(PHONE, "lead-2", 150, 99)).toBe(false);
    expect(await claimOf()).toEqual([{ lead_id: "lead-1", claimed_at: 100 }]);
    expect(await t.phoneClaims.claim(PHONE, "lead-3", 200, 100)).toBe(true);
    expect(await claimOf()).toEqual([{ lead_id: "lead-3", claimed_at: 200 }]);
  });

  test("claim refuses a suppressed number, and writes nothing", async () => {
    const t = backend.tables;
    await t.suppressions.add({ phoneE164: PHONE, reason: null, createdAt: 0 });
    expect(await t.phoneClaims.claim(PHONE, "lead-1", 100, 0)).toBe(false);
    expect(await claimOf()).toEqual([]);
  });

  test("isHeldSince and holderOf", async () => {
    const t = backend.tables;
    expect(await t.phoneClaims.holderOf(PHONE)).toBeNull();
    await t.phoneClaims.claim(PHONE, "lead-1", 100, 0);
    expect(await t.phoneClaims.isHeldSince(PHONE, 99)).toBe(true);
    expect(await t.phoneClaims.isHeldSince(PHONE, 100)).toBe(false);
    expect(await t.phoneClaims.isHeldSince("+12125550000", 0)).toBe(false);
    expect(await t.phoneClaims.holderOf(PHONE)).toBe("lead-1");
  });

  test("drop removes the claim only for the lead that holds it", async () => {
    const t = backend.tables;
    await t.phoneClaims.claim(PHONE, "lead-1", 100, 0);
    await t.phoneClaims.drop(PHONE, "lead-2");
    expect(await claimOf()).toEqual([{ lead_id: "lead-1", claimed_at: 100 }]);
    await t.phoneClaims.drop(PHONE, "lead-1");
    expect(await claimOf()).toEqual([]);
  });

  test("a final acceptance after the cutoff holds the number's claim taken before it; once it is older, the claim is taken over", async () => {
    const t = backend.tables;
    const intake = Date.UTC(2026, 0, 1);
    const leadId = Bun.randomUUIDv7();
    await t.vendors.insert(vendorRow("vendor-a"));
    await t.leads.insertPending(leadFields(PHONE), { id: leadId, vendorId: "vendor-a", rawRequest: "{}", createdAt: intake, decideAfter: intake + HOLD });
    expect(await t.phoneClaims.claim(PHONE, leadId, intake, 0)).toBe(true);
    // Pending, the lead holds the number from its intake only (its preliminary acceptance).
    expect(await t.phoneClaims.isHeldSince(PHONE, intake)).toBe(false);
    const decidedAt = intake + HOLD + 500;
    await t.leads.claimDue(decidedAt, 1, 1_000, "token");
    expect(await t.leads.finish(leadId, "token", "accepted", null, decidedAt)).toBe(true);
    expect(await claimOf()).toEqual([{ lead_id: leadId, claimed_at: intake }]);
    for (const cutoff of [intake, decidedAt - 1]) {
      expect(await t.phoneClaims.isHeldSince(PHONE, cutoff)).toBe(true);
      expect(await t.phoneClaims.claim(PHONE, "lead-2", cutoff + 1, cutoff)).toBe(false);
    }
    expect(await t.phoneClaims.isHeldSince(PHONE, decidedAt)).toBe(false);
    expect(await t.phoneClaims.claim(PHONE, "lead-2", decidedAt + 1, decidedAt)).toBe(true);
    expect(await claimOf()).toEqual([{ lead_id: "lead-2", claimed_at: decidedAt + 1 }]);
  });

  test("a lead rejected after the cutoff does not hold the claim: only a final acceptance does", async () => {
    const t = backend.tables;
    const leadId = Bun.randomUUIDv7();
    await t.vendors.insert(vendorRow("vendor-a"));
    await t.leads.insertPending(leadFields(PHONE), { id: leadId, vendorId: "vendor-a", rawRequest: "{}", createdAt: 100, decideAfter: 100 });
    await t.phoneClaims.claim(PHONE, "lead-0", 100, 0);
    await t.leads.claimDue(500, 1, 1_000, "token");
    await t.leads.finish(leadId, "token", "rejected", "no", 500);
    expect(await t.phoneClaims.isHeldSince(PHONE, 200)).toBe(false);
    expect(await t.phoneClaims.claim(PHONE, "lead-2", 300, 200)).toBe(true);
  });
});
