// The worker's set-based decisions on SQLite (store/batches/sqlite.ts): a batch of due leads, read
// without a lease, decided with one read and one write, each lead, callback and phone claim written
// as the per-lead script (record.ts recordIfStill) would; what the batch cannot settle stays pending
// for the next pass.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { sqliteWorkerBatches } from "../../src/store/batches/sqlite.ts";
import { callbackPayload } from "../../src/callbacks/payload.ts";
import { REASON_OPERATOR, REASON_SUPPRESSED } from "../../src/contract/texts.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { runNow } from "../../src/db/script.ts";
import type { DecisionBatches } from "../../src/final-results/job.ts";
import type { ServiceStore, Tables } from "../../src/store/index.ts";
import { compilePolicy } from "../../src/policy/index.ts";
import { groupCommittedStore } from "../../src/store/sqlite.ts";
import { decisionJob as decisionJobOn } from "./decision-job.ts";
import { arrangeFinalChecks, FINAL_CHECKS_POLICY } from "./final-checks-fixture.ts";
import { leadFields, now, pendingLead, tablesOf, vendorRow } from "../helpers/tables.ts";

const VENDOR = vendorRow("vendor-a");
const CREATED = Date.UTC(2026, 0, 1);
const DECIDED = CREATED + 60_000;
const LEASE = 30_000;

let handle: DatabaseHandle;
let t: Tables;
let store: ServiceStore;
let batches: DecisionBatches;
/** Scripts run through the store (the batch path needs none: it has statements of its own). */
let scripts: number;

beforeEach(() => {
  handle = openDatabase(":memory:");
  t = tablesOf(handle.db);
  now(t.vendors.insert(VENDOR));
  const commit = createGroupCommitter(handle.sqlite);
  const committed = groupCommittedStore(handle.db, commit);
  scripts = 0;
  store = {
    read: (script) => (scripts++, committed.read(script)),
    write: (script, options) => (scripts++, committed.write(script, options)),
  };
  batches = sqliteWorkerBatches(handle.sqlite, commit).decisions;
});
afterEach(() => handle.close());

/** A lead held until DECIDED, with its callback and its phone claim. */
const HELD = { vendorId: VENDOR.id, createdAt: CREATED, decideAfter: DECIDED, callbackUrl: "https://example.com/hook", claimPhone: true };
const heldLead = (phone: string) => runNow(pendingLead(t, { ...HELD, phoneE164: phone }));

const decisionJob = (decisionBatches: DecisionBatches) => decisionJobOn(store, decisionBatches, { decidedAt: DECIDED, leaseMs: LEASE });

const leadRows = () =>
  handle.sqlite.query("SELECT id, status, rejection_reason, decided_at, claim_token FROM leads ORDER BY phone_e164").all() as {
    id: string;
    status: string;
    rejection_reason: string | null;
    decided_at: number | null;
    claim_token: string | null;
  }[];

test("a batch of due leads is decided by one read and one write: each lead, its callback and its claim as recordIfStill writes them", async () => {
  const [plain, suppressed, operatorRejected, operatorAccepted] = ["+12125550001", "+12125550002", "+12125550003", "+12125550004"].map(heldLead) as [
    string,
    string,
    string,
    string,
  ];
  now(t.suppressions.add({ phoneE164: "+12125550002", reason: null, createdAt: 0 }));
  now(t.suppressions.add({ phoneE164: "+12125550004", reason: null, createdAt: 0 }));
  now(t.leads.recordOperatorDecision(operatorRejected, "reject", "bad lead"));
  now(t.leads.recordOperatorDecision(operatorAccepted, "accept", null)); // suppression still wins
  const { job, decided } = decisionJob(batches);
  expect(await job.runOnce()).toBe(4);
  expect(scripts).toBe(0); // no lease, and no lead needed a script of its own
  expect(decided.sort()).toEqual(["accepted", "rejected", "rejected", "rejected"]);
  expect(leadRows()).toEqual([
    { id: plain, status: "accepted", rejection_reason: null, decided_at: DECIDED, claim_token: null },
    { id: suppressed, status: "rejected", rejection_reason: REASON_SUPPRESSED, decided_at: DECIDED, claim_token: null },
    { id: operatorRejected, status: "rejected", rejection_reason: `${REASON_OPERATOR}: bad lead`, decided_at: DECIDED, claim_token: null },
    { id: operatorAccepted, status: "rejected", rejection_reason: REASON_SUPPRESSED, decided_at: DECIDED, claim_token: null },
  ]);
  expect(await batches.readDue!(DECIDED, 10)).toEqual([]); // none left: all decided
  const plainLead = { id: plain, vendorId: VENDOR.id, phoneE164: "+12125550001", certificateUrl: null, vendorCampaignName: leadFields().vendorCampaignName };
  expect(handle.sqlite.query("SELECT status, payload, next_attempt_at AS at FROM callbacks WHERE lead_id = ?").get(plain)).toEqual({
    status: "pending",
    payload: callbackPayload(plainLead, { status: "accepted" }, DECIDED),
    at: DECIDED,
  });
  expect(handle.sqlite.query("SELECT count(*) AS n FROM callbacks WHERE status = 'pending'").get()).toEqual({ n: 4 });
  // The accepted lead's claim stands as taken (its acceptance holds it from then on); the rejected ones' are dropped.
  const holders = ["+12125550001", "+12125550002", "+12125550003", "+12125550004"].map((phone) => now(t.phoneClaims.holderOf(phone)));
  expect(holders).toEqual([plain, null, null, null]);
  expect(now(t.phoneClaims.isHeldSince("+12125550001", DECIDED - 1))).toBe(true);
});

test("the due leads are read oldest first, without a lease: the row is written once, by the decision", async () => {
  const [first, second] = ["+12125550031", "+12125550032"].map(heldLead) as [string, string];
  handle.sqlite.run("UPDATE leads SET decide_after = decide_after - 1 WHERE id = ?", [second]);
  expect((await batches.readDue!(DECIDED, 10)).map((lead) => lead.id)).toEqual([second, first]);
  expect((await batches.readDue!(DECIDED - 1, 10)).map((lead) => lead.id)).toEqual([second]);
  expect((await batches.readDue!(DECIDED, 1)).map((lead) => lead.id)).toEqual([second]);
  expect(leadRows().map((row) => row.claim_token)).toEqual([null, null]);
});

test("checks that change between the batch's read and its write: that lead stays pending, and the next pass decides it on the checks as they stand", async () => {
  const [stays, changes] = ["+12125550011", "+12125550012"].map(heldLead) as [string, string];
  let reads = 0;
  const { job, decided } = decisionJob({
    ...batches,
    async checksOf(leads) {
      const checks = await batches.checksOf(leads);
      if (reads++ === 0) now(t.suppressions.add({ phoneE164: "+12125550012", reason: null, createdAt: 0 })); // after the first read
      return checks;
    },
  });
  expect(await job.runOnce()).toBe(2);
  expect(decided).toEqual(["accepted"]);
  expect(leadRows().map((row) => [row.id, row.status])).toEqual([
    [stays, "accepted"],
    [changes, "pending"],
  ]);
  expect(await job.runOnce()).toBe(1);
  expect(decided).toEqual(["accepted", "rejected"]);
  expect(leadRows().find((row) => row.id === changes)).toMatchObject({ status: "rejected", rejection_reason: REASON_SUPPRESSED });
  expect(scripts).toBe(0);
});

test("a lead decided meanwhile (by another process on the file) is not recorded again: its status fences the batch", async () => {
  const [kept, taken] = ["+12125550021", "+12125550022"].map(heldLead) as [string, string];
  const { job, decided } = decisionJob({
    ...batches,
    record(decisions, token, at) {
      handle.sqlite.run("UPDATE leads SET status = 'rejected', decided_at = 1, rejection_reason = 'elsewhere' WHERE id = ?", [taken]);
      return batches.record(decisions, token, at);
    },
  });
  await job.runOnce();
  expect(decided).toEqual(["accepted"]);
  expect(leadRows().map((row) => [row.id, row.status, row.rejection_reason, row.decided_at])).toEqual([
    [kept, "accepted", null, DECIDED],
    [taken, "rejected", "elsewhere", 1],
  ]);
  expect(handle.sqlite.query("SELECT count(*) AS n FROM callbacks WHERE status = 'pending'").get()).toEqual({ n: 1 });
  expect(await job.runOnce()).toBe(0);
});

test("a write that fails fails the pass (the loop backs off) and leaves every lead pending", async () => {
  heldLead("+12125550041");
  const { job, decided } = decisionJob({ ...batches, record: () => Promise.reject(new Error("disk full")) });
  await expect(job.runOnce()).rejects.toThrow("disk full");
  expect(decided).toEqual([]);
  expect(leadRows().map((row) => row.status)).toEqual(["pending"]);
});

test("the write is fenced by the facts version alone: a lead whose version moved since the read stays pending, whatever moved it", async () => {
  const [stays, moved] = ["+12125550051", "+12125550052"].map(heldLead) as [string, string];
  let reads = 0;
  const { job, decided } = decisionJob({
    ...batches,
    async checksOf(leads) {
      const facts = await batches.checksOf(leads);
      if (reads++ === 0) handle.sqlite.run("UPDATE leads SET facts_version = facts_version + 1 WHERE id = ?", [moved]);
      return facts;
    },
  });
  await job.runOnce();
  expect(decided).toEqual(["accepted"]);
  expect(leadRows().map((row) => [row.id, row.status])).toEqual([
    [stays, "accepted"],
    [moved, "pending"],
  ]);
  await job.runOnce();
  expect(leadRows().map((row) => row.status)).toEqual(["accepted", "accepted"]);
});

/** Final rules every lead here fails (leadFields' state is NY, the numbers +1212…), and one out of its scope. */
const FINAL_RULES = compilePolicy({
  rules: [
    { name: "state", stage: "final", require: { field: "state", op: "in", value: ["CA"] }, reason: "State not served: {state}" },
    {
      name: "area",
      stage: "final",
      vendors: ["vendor-a"],
      require: { field: "phone.area_code", op: "equals", value: "213" },
      reason: "Area {phone.area_code}",
    },
    { name: "elsewhere", stage: "final", vendors: ["vendor-other"], require: { field: "state", op: "equals", value: "ZZ" } },
  ],
});

test("with final rules in force the batch reads the fields: a lead failing two is rejected with both reasons (stored as a list, each in the callback); an operator's accept wins", async () => {
  const failing = await heldLead("+12125550001");
  const accepted = await heldLead("+12125550002");
  now(t.leads.recordOperatorDecision(accepted, "accept", null));
  const { job, decided } = decisionJobOn(store, batches, { decidedAt: DECIDED, leaseMs: LEASE, policy: FINAL_RULES });
  await job.runOnce();
  expect(decided.sort()).toEqual(["accepted", "rejected"]);
  const rows = leadRows();
  expect(rows.map((row) => [row.id, row.status, row.rejection_reason])).toEqual([
    [failing, "rejected", '["State not served: NY","Area 212"]'],
    [accepted, "accepted", null],
  ]);
  const payload = JSON.parse((handle.sqlite.query("SELECT payload FROM callbacks WHERE lead_id = ?").get(failing) as { payload: string }).payload);
  expect(payload.message).toEqual([{ error: "State not served: NY" }, { error: "Area 212" }]);
});

test("with final-stage checks in force the batch reads their answers: a fail and an error (on_error reject) reject, a final rule reads an intake check's reason", async () => {
  const leads = [await heldLead("+12125550001"), await heldLead("+12125550002"), await heldLead("+12125550003"), await heldLead("+12125550004")];
  const expected = await arrangeFinalChecks(
    leads,
    (script) => store.write(script),
    async (leadId, json) => handle.sqlite.query("UPDATE leads SET check_answers = ? WHERE id = ?").run(json, leadId),
    CREATED + 1_000,
  );
  const { job, decided } = decisionJobOn(store, batches, { decidedAt: DECIDED, leaseMs: LEASE, policy: FINAL_CHECKS_POLICY });
  await job.runOnce();
  expect(decided).toHaveLength(4);
  expect(leadRows().map((row) => row.rejection_reason)).toEqual(expected);
});
