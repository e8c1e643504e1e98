// The leads table, on both backends: stored pending, leased to one worker at a time, finished once
// and only by the holder of the current lease, an operator's decision only while pending.
import { beforeEach, describe, expect, test } from "bun:test";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";
import { EXAMPLE_LEAD } from "../../src/intake/lead-schema.ts";

const HOLD = 60_000;
const newId = () => Bun.randomUUIDv7();

describeOnBothBackends("leads", (backend) => {
  let clock: number;
  const row = async (id: string) => (await backend.rows("SELECT * FROM leads WHERE id = $1", id))[0]!;

  async function insert(vendorId = "vendor-a", id = newId()): Promise<string> {
    await backend.tables.leads.insertPending(leadFields(), { id, vendorId, rawRequest: "{}", createdAt: clock, decideAfter: clock + HOLD });
    clock += 1;
    return id;
  }

  beforeEach(async () => {
    clock = Date.UTC(2026, 0, 1);
    await backend.tables.vendors.insert(vendorRow("vendor-a"));
    await backend.tables.vendors.insert(vendorRow("vendor-b"));
  });

  test("insertPending stores the lead pending, with its fields, times and no decision", async () => {
    const id = await insert();
    expect(await row(id)).toMatchObject({
      status: "pending",
      phone_e164: "+12125551234",
      raw_request: "{}",
      decide_after: clock - 1 + HOLD,
      decided_at: null,
      claim_token: null,
    });
    expect(await backend.tables.leads.countPending()).toBe(1);
  });

  test("insertPending stores the campaign folded as the policy's scopes compare it (trimmed, JavaScript's lower case beyond ASCII)", async () => {
    const id = newId();
    const fields = { ...leadFields(), vendorCampaignName: " \u212Aelvin-ÉTÉ " };
    await backend.tables.leads.insertPending(fields, { id, vendorId: "vendor-a", rawRequest: "{}", createdAt: clock, decideAfter: clock + HOLD });
    expect(await row(id)).toMatchObject({ vendor_campaign_name: " \u212Aelvin-ÉTÉ ", campaign_folded: "kelvin-été" });
  });

  test("countByStatus counts one vendor's leads by status", async () => {
    const t = backend.tables;
    await insert("vendor-a");
    await insert("vendor-a");
    await insert("vendor-b");
    const [decided] = await t.leads.claimDue(clock + HOLD, 1, 1_000, "token");
    await t.leads.finish(decided!.id, "token", decided!.vendorId === "vendor-a" ? "rejected" : "accepted", "no", clock + HOLD);
    const counts = async (vendorId: string) => Object.fromEntries((await t.leads.countByStatus(vendorId)).map(({ status, n }) => [status, n]));
    expect(await counts("vendor-a")).toEqual({ pending: 1, rejected: 1 });
    expect(await counts("vendor-b")).toEqual({ pending: 1 });
    expect(await counts("vendor-none")).toEqual({});
  });

  test("stateFor answers the vendor's own lead only; another vendor's or an unknown id is not found", async () => {
    const t = backend.tables;
    const id = await insert("vendor-a");
    expect(await t.leads.stateFor(id, "vendor-a")).toEqual({ id, status: "pending", rejectionReason: null });
    expect(await t.leads.stateFor(id, "vendor-b")).toBeUndefined();
    expect(await t.leads.stateFor("not-a-uuid", "vendor-a")).toBeUndefined();
  });

  test("findRecent finds the vendor's lead created after the cutoff, with its fields", async () => {
    const t = backend.tables;
    const created = clock;
    const id = await insert("vendor-a");
    expect(await t.leads.findRecent(id, "vendor-a", created - 1)).toMatchObject(leadFields());
    expect(await t.leads.findRecent(id, "vendor-a", created)).toBeUndefined();
    expect(await t.leads.findRecent(id, "vendor-b", created - 1)).toBeUndefined();
  });

  describe("claimDue (the lease)", () => {
    test("claims only pending leads whose hold is over, oldest first, up to the limit", async () => {
      const t = backend.tables;
      const start = clock;
      const first = await insert();
      const second = await insert();
      const at = clock + HOLD;
      expect(await t.leads.claimDue(start + HOLD - 1, 10, 1000, "t0")).toEqual([]);
      expect((await t.leads.claimDue(at, 1, 1000, "t1")).map((l) => l.id)).toEqual([first]);
      expect(await t.leads.claimDue(at, 10, 1000, "t2")).toEqual([
        expect.objectContaining({
          id: second,
          vendorId: "vendor-a",
          phoneE164: "+12125551234",
          certificateUrl: null,
          vendorCampaignName: EXAMPLE_LEAD.vendor_campaign_name,
        }),
      ]);
    });

    test("a leased lead is not claimed again until its lease expires", async () => {
      const t = backend.tables;
      await insert();
      const at = clock + HOLD;
      expect(await t.leads.claimDue(at, 10, 1000, "t1")).toHaveLength(1);
      expect(await t.leads.claimDue(at + 999, 10, 1000, "t2")).toHaveLength(0);
      expect(await t.leads.claimDue(at + 1001, 10, 1000, "t2")).toHaveLength(1);
    });
  });

  describe("finish (fenced by the lease's token)", () => {
    test("the holder of the current lease finishes the lead once; the lease is cleared", async () => {
      const t = backend.tables;
      const id = await insert();
      const at = clock + HOLD;
      await t.leads.claimDue(at, 10, 1000, "t1");
      expect(await t.leads.finish(id, "t1", "rejected", "nope", at)).toBe(true);
      expect(await row(id)).toMatchObject({ status: "rejected", rejection_reason: "nope", decided_at: at, locked_until: null, claim_token: null });
      expect(await t.leads.finish(id, "t1", "accepted", null, at + 1)).toBe(false);
      expect(await t.leads.countPending()).toBe(0);
    });

    test("a lease held by another token writes nothing", async () => {
      const t = backend.tables;
      const id = await insert();
      const at = clock + HOLD;
      await t.leads.claimDue(at, 10, 1000, "old");
      await t.leads.claimDue(at + 2000, 10, 1000, "new");
      expect(await t.leads.finish(id, "old", "accepted", null, at)).toBe(false);
      expect(await row(id)).toMatchObject({ status: "pending", claim_token: "new", decided_at: null });
    });
  });

  test("an operator's decision is recorded only while the lead is pending", async () => {
    const t = backend.tables;
    const id = await insert();
    expect(await t.leads.operatorDecisionOf(id)).toEqual({ decision: null, reason: null });
    expect(await t.leads.recordOperatorDecision(id, "reject", "duplicate")).toBe(true);
    expect(await t.leads.operatorDecisionOf(id)).toEqual({ decision: "reject", reason: "duplicate" });
    await t.leads.claimDue(clock + HOLD, 10, 1000, "t");
    await t.leads.finish(id, "t", "rejected", "Rejected by operator: duplicate", clock + HOLD);
    expect(await t.leads.recordOperatorDecision(id, "accept", null)).toBe(false);
    expect(await t.leads.statusOf(id)).toBe("rejected");
    expect(await t.leads.operatorDecisionOf(newId())).toBeUndefined();
    expect(await t.leads.statusOf(newId())).toBeNull();
  });

  test("list and detail give the operator's view: column names, the vendor's name, no 64-bit key", async () => {
    const t = backend.tables;
    const id = await insert("vendor-b");
    expect(await t.leads.list({ vendorName: "vendor-b", limit: 10 })).toEqual([
      {
        id,
        created_at: clock - 1,
        status: "pending",
        vendor: "vendor-b",
        phone_e164: "+12125551234",
        vendor_campaign_name: EXAMPLE_LEAD.vendor_campaign_name,
        decided_at: null,
        rejection_reason: null,
        callback_status: null,
        test: false,
      },
    ]);
    expect(await t.leads.list({ vendorName: "vendor-a", limit: 10 })).toEqual([]);
    expect(await t.leads.list({ status: "accepted", limit: 10 })).toEqual([]);
    const detail = (await t.leads.detail(id))!;
    expect(Object.keys(detail)[0]).toBe("vendor");
    expect(detail).toMatchObject({ vendor: "vendor-b", id, vendor_id: "vendor-b", status: "pending" });
    expect(detail).not.toHaveProperty("id_key");
  });

  test("a test lead (docs/contract.md §12) is stored marked, listed with test: true, found by the test filter, and leased with its mark", async () => {
    const t = backend.tables;
    const real = await insert("vendor-a");
    const tested = newId();
    await t.leads.insertPending(leadFields(), { id: tested, vendorId: "vendor-a", rawRequest: "{}", createdAt: clock, decideAfter: clock + HOLD, test: true });
    const listed = async (test?: boolean) => (await t.leads.list({ test, limit: 10 })).map((lead) => [lead.id, lead.test]);
    expect(await listed()).toEqual([
      [tested, true],
      [real, false],
    ]);
    expect(await listed(true)).toEqual([[tested, true]]);
    expect(await listed(false)).toEqual([[real, false]]);
    // The vendor's business counts are its real leads'.
    expect(await t.leads.countByStatus("vendor-a")).toEqual([{ status: "pending", n: 1 }]);
    expect(await t.leads.tally(0)).toEqual([{ vendor: "vendor-a", status: "pending", leads: 1, decisionMsTotal: 0 }]);
    const due = await t.leads.claimDue(clock + HOLD, 10, 1_000, "token");
    expect(due.map((lead) => [lead.id, Boolean(lead.test)]).sort()).toEqual(
      [
        [real, false],
        [tested, true],
      ].sort(),
    );
  });

  test("storedForRules answers the vendor's name and the lead's stored fields, extra_data as its JSON text; an unknown id is not found", async () => {
    const id = newId();
    const fields = { ...leadFields(), extraData: '{"home_owner":true}' };
    await backend.tables.leads.insertPending(fields, { id, vendorId: "vendor-b", rawRequest: "{}", createdAt: clock, decideAfter: clock + HOLD });
    expect(await backend.tables.leads.storedForRules(id)).toEqual({ vendor: "vendor-b", fields });
    expect(await backend.tables.leads.storedForRules(newId())).toBeUndefined();
  });
});
