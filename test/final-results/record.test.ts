// Recording a decision as one script over the leads, callbacks and phone claims, on a real
// (in-memory) database: only the holder of the lead's lease writes, and the three change together.
import { storeOn } from "../../src/store/sqlite.ts";
import { beforeEach, describe, expect, test } from "bun:test";
import { runNow } from "../../src/db/script.ts";
import type { FinalResult } from "../../src/final-results/decide.ts";
import { checksNow, decideNow, NO_CERTIFICATE, recordDecision } from "../../src/final-results/record.ts";
import { compilePolicy } from "../../src/policy/index.ts";
import { prePing } from "../../src/intake/service.ts";
import type { Tables } from "../../src/store/index.ts";
import type { DueLead } from "../../src/store/leads/index.ts";
import { addSuppression } from "../../src/suppression/index.ts";
import { intakeHarness, type IntakeHarness } from "../helpers/intake.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { now, tablesOf } from "../helpers/tables.ts";

let h: IntakeHarness;
let t: Tables;
const HOLD = 60_000;
const row = (table: string, where: string, id: string) =>
  h.database.sqlite.query(`SELECT * FROM ${table} WHERE ${where} = ?`).get(id) as Record<string, any> | null;
/** The lead that holds the claim of a number as uniquePhone spells it (on SQLite, its latest lead unless rejected). */
const holderOf = (phone: string) => now(t.phoneClaims.holderOf(`+1${phone.replace(/\D/g, "")}`));
const claim = (at: number, token: string) => now(t.leads.claimDue(at, 10, 1000, token));
const record = (lead: DueLead, token: string, result: FinalResult, at: number, payload: string) =>
  h.database.sqlite.transaction(() => runNow(recordDecision(t, lead, token, result, at, payload)))();

beforeEach(async () => {
  h = await intakeHarness({ holdPeriodMs: HOLD });
  t = tablesOf(h.database.db);
});

describe("recordDecision", () => {
  test("accepted: the lead is final, its callback is released with the payload, its number stays blocked", async () => {
    const phone = uniquePhone();
    const id = await h.accept(validLead({ phone_number: phone }));
    const at = h.now.value + HOLD;
    const [lead] = claim(at, "t1");
    expect(record(lead!, "t1", { status: "accepted" }, at, '{"x":1}')).toBe(true);
    expect(row("leads", "id", id)).toMatchObject({ status: "accepted", decided_at: at, rejection_reason: null, claim_token: null });
    expect(row("callbacks", "lead_id", id)).toMatchObject({ status: "pending", payload: '{"x":1}', next_attempt_at: at });
    // The claim stands as taken at intake; the final acceptance blocks the number for the window from `at`.
    expect(holderOf(phone)).toBe(id);
    expect(row("leads", "id", id)).toMatchObject({ created_at: at - HOLD });
    h.now.value = at + h.deps.duplicateWindowMs - 1;
    expect(prePing(h.deps, { phone_number: phone })).toEqual({ kind: "blocked" });
    h.now.value = at + h.deps.duplicateWindowMs;
    expect(prePing(h.deps, { phone_number: phone })).toEqual({ kind: "eligible" });
  });

  test("rejected: the reason is kept and the number is free again", async () => {
    const phone = uniquePhone();
    const id = await h.accept(validLead({ phone_number: phone }));
    const at = h.now.value + HOLD;
    const [lead] = claim(at, "t1");
    record(lead!, "t1", { status: "rejected", reasons: ["nope"] }, at, "{}");
    expect(row("leads", "id", id)).toMatchObject({ status: "rejected", rejection_reason: "nope" });
    expect(holderOf(phone)).toBeNull();
    h.now.value = at;
    expect(prePing(h.deps, { phone_number: phone })).toEqual({ kind: "eligible" });
  });

  test("a worker whose lease expired cannot overwrite the newer claim's decision, nor release the callback", async () => {
    const phone = uniquePhone();
    const id = await h.accept(validLead({ phone_number: phone }));
    const at = h.now.value + HOLD;
    const [stale] = claim(at, "old");
    const [fresh] = claim(at + 2000, "new");
    expect(record(stale!, "old", { status: "rejected", reasons: ["stale"] }, at, "{}")).toBe(false);
    expect(row("leads", "id", id)).toMatchObject({ status: "pending" });
    expect(row("callbacks", "lead_id", id)).toMatchObject({ status: "held" });
    expect(holderOf(phone)).toBe(id);
    expect(record(fresh!, "new", { status: "accepted" }, at + 2000, "{}")).toBe(true);
    expect(record(fresh!, "new", { status: "rejected", reasons: ["twice"] }, at + 2001, "{}")).toBe(false);
    expect(row("leads", "id", id)).toMatchObject({ status: "accepted" });
  });
});

test("checksNow sees a suppression added during the hold", async () => {
  const phone = uniquePhone();
  await h.accept(validLead({ phone_number: phone }));
  const [lead] = claim(h.now.value + HOLD, "t1");
  expect(runNow(checksNow(t, lead!, NO_CERTIFICATE))).toEqual({ suppressedNow: false, operatorDecision: null, certificate: null });
  await addSuppression(storeOn(h.database.db), phone, null, "test");
  expect(runNow(checksNow(t, lead!, NO_CERTIFICATE))).toEqual({ suppressedNow: true, operatorDecision: null, certificate: null });
});

describe("final rules on the per-lead path (a lead decided alone)", () => {
  const policy = compilePolicy({
    rules: [
      {
        name: "owner",
        stage: "final",
        vendors: ["vendor-test"],
        require: { field: "extra_data.home_owner", op: "equals", value: true },
        reason: "Not a home owner: {extra_data.home_owner}",
      },
      { name: "state", stage: "final", require: { field: "state", op: "in", value: ["CA"] }, reason: "State not served: {state}" },
      { name: "elsewhere", stage: "final", vendors: ["vendor-other"], require: { field: "state", op: "equals", value: "ZZ" } },
    ],
  });

  test("the lead's stored fields and extra_data are read, and every failing rule in scope gives its reason, in order", async () => {
    await h.accept(validLead({ state: "ny", extra_data: { home_owner: "no" } }));
    const [lead] = claim(h.now.value + HOLD, "t1");
    expect(runNow(decideNow(t, lead!, NO_CERTIFICATE, policy))).toEqual({ status: "rejected", reasons: ["Not a home owner: no", "State not served: NY"] });
    expect(runNow(decideNow(t, lead!, NO_CERTIFICATE))).toEqual({ status: "accepted" });
  });

  test("a lead passing them, or suppressed (one reason: the suppression's)", async () => {
    const phone = uniquePhone();
    await h.accept(validLead({ phone_number: phone, state: "CA", extra_data: { home_owner: true } }));
    const [lead] = claim(h.now.value + HOLD, "t1");
    expect(runNow(decideNow(t, lead!, NO_CERTIFICATE, policy))).toEqual({ status: "accepted" });
    await addSuppression(storeOn(h.database.db), phone, null, "test");
    expect(runNow(decideNow(t, lead!, NO_CERTIFICATE, policy))).toMatchObject({ status: "rejected", reasons: [expect.stringContaining("suppression")] });
  });
});
