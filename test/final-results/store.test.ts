// Claiming due leads and recording decisions, on a real (in-memory) database.
import { beforeEach, describe, expect, test } from "bun:test";
import { createFinalResultStore, type FinalResultStore } from "../../src/final-results/store.ts";
import { prePing } from "../../src/intake/service.ts";
import { addSuppression } from "../../src/suppression/index.ts";
import { intakeHarness, type IntakeHarness } from "../helpers/intake.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";

let h: IntakeHarness;
let store: FinalResultStore;
const HOLD = 60_000;
const row = (table: string, where: string, id: string) => h.database.sqlite.query(`SELECT * FROM ${table} WHERE ${where} = ?`).get(id) as Record<string, any> | null;

beforeEach(async () => {
  h = await intakeHarness({ holdPeriodMs: HOLD });
  store = createFinalResultStore(h.database.sqlite);
});

describe("claimDueLeads", () => {
  test("claims only pending leads whose hold is over", async () => {
    const id = await h.accept(validLead());
    expect(store.claimDueLeads(h.now.value + HOLD - 1, 10, 1000, "t1")).toEqual([]);
    expect(store.claimDueLeads(h.now.value + HOLD, 10, 1000, "t1").map((l) => l.id)).toEqual([id]);
  });

  test("a claimed lead is not claimed again until its lease expires", async () => {
    await h.accept(validLead());
    const at = h.now.value + HOLD;
    expect(store.claimDueLeads(at, 10, 1000, "t1")).toHaveLength(1);
    expect(store.claimDueLeads(at + 999, 10, 1000, "t2")).toHaveLength(0);
    expect(store.claimDueLeads(at + 1001, 10, 1000, "t2")).toHaveLength(1);
  });
});

describe("recordDecision", () => {
  test("accepted: the lead is final, its callback is released with the payload, its number stays blocked", async () => {
    const phone = uniquePhone();
    const id = await h.accept(validLead({ phone_number: phone }));
    const at = h.now.value + HOLD;
    const [lead] = store.claimDueLeads(at, 10, 1000, "t1");
    expect(h.database.sqlite.transaction(() => store.recordDecision(lead!, "t1", { status: "accepted" }, at, '{"x":1}'))()).toBe(true);
    expect(row("leads", "id", id)).toMatchObject({ status: "accepted", decided_at: at, rejection_reason: null, claim_token: null });
    expect(row("callbacks", "lead_id", id)).toMatchObject({ status: "pending", payload: '{"x":1}', next_attempt_at: at });
    expect(row("phone_claims", "lead_id", id)).toMatchObject({ claimed_at: at });
  });

  test("rejected: the reason is kept and the number is free again", async () => {
    const phone = uniquePhone();
    const id = await h.accept(validLead({ phone_number: phone }));
    const at = h.now.value + HOLD;
    const [lead] = store.claimDueLeads(at, 10, 1000, "t1");
    store.recordDecision(lead!, "t1", { status: "rejected", reason: "nope" }, at, "{}");
    expect(row("leads", "id", id)).toMatchObject({ status: "rejected", rejection_reason: "nope" });
    expect(row("phone_claims", "lead_id", id)).toBeNull();
    h.now.value = at;
    expect(prePing(h.deps, { phone_number: phone })).toEqual({ kind: "eligible" });
  });

  test("a worker whose lease expired cannot overwrite the newer claim's decision", async () => {
    const id = await h.accept(validLead());
    const at = h.now.value + HOLD;
    const [stale] = store.claimDueLeads(at, 10, 1000, "old");
    const [fresh] = store.claimDueLeads(at + 2000, 10, 1000, "new");
    expect(store.recordDecision(stale!, "old", { status: "rejected", reason: "stale" }, at, "{}")).toBe(false);
    expect(row("leads", "id", id)).toMatchObject({ status: "pending" });
    expect(store.recordDecision(fresh!, "new", { status: "accepted" }, at + 2000, "{}")).toBe(true);
    expect(store.recordDecision(fresh!, "new", { status: "rejected", reason: "twice" }, at + 2001, "{}")).toBe(false);
    expect(row("leads", "id", id)).toMatchObject({ status: "accepted" });
  });
});

test("checksNow sees a suppression added during the hold", async () => {
  const phone = uniquePhone();
  const id = await h.accept(validLead({ phone_number: phone }));
  expect(store.checksNow(id)).toMatchObject({ suppressed: 0 });
  addSuppression(h.database.db, phone);
  expect(store.checksNow(id)).toMatchObject({ suppressed: 1 });
});
