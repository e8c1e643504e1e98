// The phone claims, on both backends: one claim per number, taken over only once it is older than
// the window, never for a suppressed number; renewed or dropped only by the lead that holds it.
import { expect, test } from "bun:test";
import { describeOnBothBackends } from "../helpers/store-backends.ts";

const PHONE = "+12125551234";

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

  test("renew and drop change the claim only for the lead that holds it", async () => {
    const t = backend.tables;
    await t.phoneClaims.claim(PHONE, "lead-1", 100, 0);
    await t.phoneClaims.renew(PHONE, "lead-2", 500);
    await t.phoneClaims.drop(PHONE, "lead-2");
    expect(await claimOf()).toEqual([{ lead_id: "lead-1", claimed_at: 100 }]);
    await t.phoneClaims.renew(PHONE, "lead-1", 500);
    expect(await claimOf()).toEqual([{ lead_id: "lead-1", claimed_at: 500 }]);
    await t.phoneClaims.drop(PHONE, "lead-1");
    expect(await claimOf()).toEqual([]);
  });
});
