// The phone claims, on both backends: one claim per number, taken over only once neither it nor a
// final acceptance of the number is newer than the cutoff, never for a suppressed number; dropped
// only by the rejection of the lead that holds it. A claim is taken as intake takes it: the claim,
// then its lead's insert in the same transaction (on SQLite that lead's row is the claim).
import { expect, test } from "bun:test";
import { op, type Script } from "../../src/db/script.ts";
import type { Tables } from "../../src/store/index.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";

const PHONE = "+12125551234";
const HOLD = 60_000;

/** Claims the number for a new lead at `now` and, if taken, inserts that lead; its id, or null when refused. */
function* take(t: Tables, now: number, cutoff: number, phone = PHONE): Script<string | null> {
  const id = Bun.randomUUIDv7();
  if (!(yield* op(t.phoneClaims.claim(phone, id, now, cutoff)))) return null;
  yield* op(t.leads.insertPending(leadFields(phone), { id, vendorId: "vendor-a", rawRequest: "{}", createdAt: now, decideAfter: now }));
  return id;
}

/** Decides a lead (claimDue leases every due lead: one at a time here). */
async function decide(t: Tables, leadId: string, status: "accepted" | "rejected", at: number) {
  await t.leads.claimDue(at, 1, 1_000, "token");
  expect(await t.leads.finish(leadId, "token", status, status === "rejected" ? "no" : null, at)).toBe(true);
  if (status === "rejected") await t.phoneClaims.drop(PHONE, leadId);
}

describeOnBothBackends("phone claims", (backend) => {
  const taken = (now: number, cutoff: number, phone?: string) => backend.store.write((t) => take(t, now, cutoff, phone));

  test("claim takes a free number, refuses it under a live claim, and takes over a claim older than the cutoff", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("vendor-a"));
    const first = await taken(100, 0);
    expect(first).not.toBeNull();
    expect(await taken(150, 99)).toBeNull();
    expect(await t.phoneClaims.holderOf(PHONE)).toBe(first);
    const third = await taken(200, 100);
    expect(third).not.toBeNull();
    expect(await t.phoneClaims.holderOf(PHONE)).toBe(third);
    expect(await t.phoneClaims.isHeldSince(PHONE, 199)).toBe(true);
  });

  test("claim refuses a suppressed number", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("vendor-a"));
    await t.suppressions.add({ phoneE164: PHONE, reason: null, createdAt: 0 });
    expect(await taken(100, 0)).toBeNull();
    expect(await t.phoneClaims.holderOf(PHONE)).toBeNull();
  });

  test("isHeldSince and holderOf", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("vendor-a"));
    expect(await t.phoneClaims.holderOf(PHONE)).toBeNull();
    const first = await taken(100, 0);
    expect(await t.phoneClaims.isHeldSince(PHONE, 99)).toBe(true);
    expect(await t.phoneClaims.isHeldSince(PHONE, 100)).toBe(false);
    expect(await t.phoneClaims.isHeldSince("+12125550000", 0)).toBe(false);
    expect(await t.phoneClaims.holderOf(PHONE)).toBe(first);
  });

  test("a rejection drops the claim only for the lead that holds it", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("vendor-a"));
    const first = (await taken(100, 0))!;
    const second = (await taken(200, 100))!;
    await decide(t, first, "rejected", 500);
    expect(await t.phoneClaims.holderOf(PHONE)).toBe(second);
    await decide(t, second, "rejected", 600);
    expect(await t.phoneClaims.holderOf(PHONE)).toBeNull();
    expect(await t.phoneClaims.isHeldSince(PHONE, 0)).toBe(false);
    expect(await taken(700, 0)).not.toBeNull();
  });

  test("a test lead holds no claim", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("vendor-a"));
    const id = Bun.randomUUIDv7();
    await t.leads.insertPending(leadFields(PHONE), { id, vendorId: "vendor-a", rawRequest: "{}", createdAt: 100, decideAfter: 100, test: true });
    expect(await t.phoneClaims.holderOf(PHONE)).toBeNull();
    expect(await t.phoneClaims.isHeldSince(PHONE, 0)).toBe(false);
  });

  test("a final acceptance after the cutoff holds the number's claim taken before it; once it is older, the claim is taken over", async () => {
    const t = backend.tables;
    const intake = Date.UTC(2026, 0, 1);
    await t.vendors.insert(vendorRow("vendor-a"));
    const leadId = (await taken(intake, 0))!;
    // Pending, the lead holds the number from its intake only (its preliminary acceptance).
    expect(await t.phoneClaims.isHeldSince(PHONE, intake)).toBe(false);
    const decidedAt = intake + HOLD + 500;
    await decide(t, leadId, "accepted", decidedAt);
    expect(await t.phoneClaims.holderOf(PHONE)).toBe(leadId);
    for (const cutoff of [intake, decidedAt - 1]) {
      expect(await t.phoneClaims.isHeldSince(PHONE, cutoff)).toBe(true);
      expect(await taken(cutoff + 1, cutoff)).toBeNull();
    }
    expect(await t.phoneClaims.isHeldSince(PHONE, decidedAt)).toBe(false);
    const next = await taken(decidedAt + 1, decidedAt);
    expect(next).not.toBeNull();
    expect(await t.phoneClaims.holderOf(PHONE)).toBe(next);
  });

  test("a lead rejected after the cutoff does not hold the claim: only a final acceptance does", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("vendor-a"));
    const first = (await taken(100, 0))!;
    // A later lead took the claim over; the earlier one is then rejected.
    const second = (await taken(150, 100))!;
    await decide(t, first, "rejected", 500);
    expect(await t.phoneClaims.holderOf(PHONE)).toBe(second);
    expect(await t.phoneClaims.isHeldSince(PHONE, 200)).toBe(false);
    expect(await taken(300, 200)).not.toBeNull();
  });
});
