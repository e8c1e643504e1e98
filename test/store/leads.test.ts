// The leads table on an in-memory database: stored pending, leased to one worker at a time, finished
// once and only by the holder of the current lease, an operator's decision only while pending.
import { beforeEach, describe, expect, test } from "bun:test";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import type { Tables } from "../../src/store/index.ts";
import { leadFields, now, tablesOf, vendorRow } from "../helpers/tables.ts";

const HOLD = 60_000;
let database: DatabaseHandle;
let t: Tables;
let clock: number;
const newId = () => Bun.randomUUIDv7();
const row = (id: string) => database.sqlite.query("SELECT * FROM leads WHERE id = ?").get(id) as Record<string, any>;

function insert(vendorId = "vendor-a", id = newId()): string {
  now(t.leads.insertPending(leadFields(), { id, vendorId, rawRequest: "{}", createdAt: clock, decideAfter: clock + HOLD }));
  clock += 1;
  return id;
}

beforeEach(() => {
  database = openDatabase(":memory:");
  t = tablesOf(database.db);
  clock = Date.UTC(2026, 0, 1);
  now(t.vendors.insert(vendorRow("vendor-a")));
  now(t.vendors.insert(vendorRow("vendor-b")));
});

test("insertPending stores the lead pending, with its fields, times and no decision", () => {
  const id = insert();
  expect(row(id)).toMatchObject({ status: "pending", phone_e164: "+12125551234", raw_request: "{}", decide_after: clock - 1 + HOLD, decided_at: null, claim_token: null });
  expect(now(t.leads.countPending())).toBe(1);
});

test("stateFor answers the vendor's own lead only; another vendor's or an unknown id is not found", () => {
  const id = insert("vendor-a");
  expect(now(t.leads.stateFor(id, "vendor-a"))).toEqual({ id, status: "pending", rejectionReason: null });
  expect(now(t.leads.stateFor(id, "vendor-b"))).toBeUndefined();
  expect(now(t.leads.stateFor("not-a-uuid", "vendor-a"))).toBeUndefined();
});

test("findRecent finds the vendor's lead created after the cutoff, with its fields", () => {
  const created = clock;
  const id = insert("vendor-a");
  expect(now(t.leads.findRecent(id, "vendor-a", created - 1))).toMatchObject(leadFields());
  expect(now(t.leads.findRecent(id, "vendor-a", created))).toBeUndefined();
  expect(now(t.leads.findRecent(id, "vendor-b", created - 1))).toBeUndefined();
});

describe("claimDue (the lease)", () => {
  test("claims only pending leads whose hold is over, oldest first, up to the limit", () => {
    const start = clock;
    const first = insert();
    const second = insert();
    const at = clock + HOLD;
    expect(now(t.leads.claimDue(start + HOLD - 1, 10, 1000, "t0"))).toEqual([]);
    expect(now(t.leads.claimDue(at, 1, 1000, "t1")).map((l) => l.id)).toEqual([first]);
    expect(now(t.leads.claimDue(at, 10, 1000, "t2"))).toEqual([expect.objectContaining({ id: second, vendorId: "vendor-a", phoneE164: "+12125551234", certificateUrl: null, vendorCampaignName: "Spring" })]);
  });

  test("a leased lead is not claimed again until its lease expires", () => {
    insert();
    const at = clock + HOLD;
    expect(now(t.leads.claimDue(at, 10, 1000, "t1"))).toHaveLength(1);
    expect(now(t.leads.claimDue(at + 999, 10, 1000, "t2"))).toHaveLength(0);
    expect(now(t.leads.claimDue(at + 1001, 10, 1000, "t2"))).toHaveLength(1);
  });
});

describe("finish (fenced by the lease's token)", () => {
  test("the holder of the current lease finishes the lead once; the lease is cleared", () => {
    const id = insert();
    const at = clock + HOLD;
    now(t.leads.claimDue(at, 10, 1000, "t1"));
    expect(now(t.leads.finish(id, "t1", "rejected", "nope", at))).toBe(true);
    expect(row(id)).toMatchObject({ status: "rejected", rejection_reason: "nope", decided_at: at, locked_until: null, claim_token: null });
    expect(now(t.leads.finish(id, "t1", "accepted", null, at + 1))).toBe(false);
    expect(now(t.leads.countPending())).toBe(0);
  });

  test("a lease held by another token writes nothing", () => {
    const id = insert();
    const at = clock + HOLD;
    now(t.leads.claimDue(at, 10, 1000, "old"));
    now(t.leads.claimDue(at + 2000, 10, 1000, "new"));
    expect(now(t.leads.finish(id, "old", "accepted", null, at))).toBe(false);
    expect(row(id)).toMatchObject({ status: "pending", claim_token: "new", decided_at: null });
  });
});

test("an operator's decision is recorded only while the lead is pending", () => {
  const id = insert();
  expect(now(t.leads.operatorDecisionOf(id))).toEqual({ decision: null, reason: null });
  expect(now(t.leads.recordOperatorDecision(id, "reject", "duplicate"))).toBe(true);
  expect(now(t.leads.operatorDecisionOf(id))).toEqual({ decision: "reject", reason: "duplicate" });
  now(t.leads.claimDue(clock + HOLD, 10, 1000, "t"));
  now(t.leads.finish(id, "t", "rejected", "Rejected by operator: duplicate", clock + HOLD));
  expect(now(t.leads.recordOperatorDecision(id, "accept", null))).toBe(false);
  expect(now(t.leads.statusOf(id))).toBe("rejected");
  expect(now(t.leads.operatorDecisionOf(newId()))).toBeUndefined();
  expect(now(t.leads.statusOf(newId()))).toBeNull();
});

test("list and detail give the operator's view: column names, the vendor's name, no 64-bit key", () => {
  const id = insert("vendor-b");
  expect(now(t.leads.list({ vendorName: "vendor-b", limit: 10 }))).toEqual([
    { id, created_at: clock - 1, status: "pending", vendor: "vendor-b", phone_e164: "+12125551234", vendor_campaign_name: "Spring", decided_at: null, callback_status: null },
  ]);
  expect(now(t.leads.list({ vendorName: "vendor-a", limit: 10 }))).toEqual([]);
  expect(now(t.leads.list({ status: "accepted", limit: 10 }))).toEqual([]);
  const detail = now(t.leads.detail(id))!;
  expect(Object.keys(detail)[0]).toBe("vendor");
  expect(detail).toMatchObject({ vendor: "vendor-b", id, vendor_id: "vendor-b", status: "pending" });
  expect(detail).not.toHaveProperty("id_key");
});
