// The worker's set-based statements on PostgreSQL (backend/pg-worker.ts, store/batches/pg.ts): a claimed batch of due leads
// decided with one read and one write, and the attempts of a turn recorded by one statement, each
// with what the per-item scripts (record.ts recordIfStill, callbacks recordAttempt) would write.
import { beforeEach, expect, test } from "bun:test";
import { callbackPayload } from "../../src/callbacks/payload.ts";
import { runAwaiting } from "../../src/db/script.ts";
import { REASON_OPERATOR, REASON_SUPPRESSED } from "../../src/contract/texts.ts";
import type { DecisionBatches } from "../../src/final-results/job.ts";
import type { Store, Tables } from "../../src/store/index.ts";
import { postgresStore, pgTables } from "../../src/store/pg.ts";
import { pgWorkerBatches } from "../../src/backend/pg-worker.ts";
import { compilePolicy } from "../../src/policy/index.ts";
import { arrangeFinalChecks, FINAL_CHECKS_POLICY } from "../final-results/final-checks-fixture.ts";
import type { WorkerBatches } from "../../src/store/batches/index.ts";
import { usePgDatabase } from "../helpers/store-backends.ts";
import { decisionJob as decisionJobOn } from "../final-results/decision-job.ts";
import { leadFields, pendingLead, vendorRow } from "../helpers/tables.ts";

const pg = usePgDatabase();
const VENDOR = vendorRow("vendor-a");
const CREATED = Date.UTC(2026, 0, 1);
const DECIDED = CREATED + 60_000;
const LEASE = 30_000;

let t: Tables;
let store: Store<"promise", "promise">;
let batches: Required<WorkerBatches>;
let scriptsAlone: number;

beforeEach(async () => {
  await pg.handle.sql.unsafe("TRUNCATE vendors, leads, callbacks, callback_attempts, phone_claims, suppressions, idempotency_keys RESTART IDENTITY");
  t = pgTables(pg.handle.db);
  await t.vendors.insert(VENDOR);
  const pool = postgresStore(pg.handle.db);
  scriptsAlone = 0;
  store = {
    read: (script) => {
      scriptsAlone++;
      return pool.read(script);
    },
    write: (script, options) => {
      scriptsAlone++;
      return pool.write(script, options);
    },
  };
  batches = pgWorkerBatches(pg.handle.db, store);
});

/** A pending lead with its held callback and its phone claim, its hold over at DECIDED. */
const HELD = { vendorId: VENDOR.id, createdAt: CREATED, decideAfter: DECIDED, callbackUrl: "https://example.com/hook", claimPhone: true };
const heldLead = (phone: string) => runAwaiting(pendingLead(t, { ...HELD, phoneE164: phone }));

const decisionJob = (decisionBatches: DecisionBatches) => decisionJobOn(store, decisionBatches, { decidedAt: DECIDED, leaseMs: LEASE });

type LeadRow = { id: string; status: string; rejection_reason: string | null; decided_at: number | null; claim_token: string | null };
const leadRows = async (): Promise<LeadRow[]> =>
  await pg.handle.sql`SELECT id, status, rejection_reason, decided_at::float8 AS decided_at, claim_token FROM leads ORDER BY phone_e164`;

test("a batch of due leads is decided by one read and one write: each lead, its callback and its claim as recordIfStill writes them", async () => {
  const [plain, suppressed, operatorRejected, operatorAccepted] = [
    await heldLead("+12125550001"),
    await heldLead("+12125550002"),
    await heldLead("+12125550003"),
    await heldLead("+12125550004"),
  ];
  await t.suppressions.add({ phoneE164: "+12125550002", reason: null, createdAt: 0 });
  await t.suppressions.add({ phoneE164: "+12125550004", reason: null, createdAt: 0 });
  await t.leads.recordOperatorDecision(operatorRejected, "reject", "bad lead");
  await t.leads.recordOperatorDecision(operatorAccepted, "accept", null); // suppression still wins
  const { job, decided } = decisionJob(batches.decisions);
  expect(await job.runOnce()).toBe(4);
  expect(scriptsAlone).toBe(1); // the claim; no lead needed a script of its own
  expect(decided.sort()).toEqual(["accepted", "rejected", "rejected", "rejected"]);
  expect(await leadRows()).toEqual([
    { id: plain, status: "accepted", rejection_reason: null, decided_at: DECIDED, claim_token: null },
    { id: suppressed, status: "rejected", rejection_reason: REASON_SUPPRESSED, decided_at: DECIDED, claim_token: null },
    { id: operatorRejected, status: "rejected", rejection_reason: `${REASON_OPERATOR}: bad lead`, decided_at: DECIDED, claim_token: null },
    { id: operatorAccepted, status: "rejected", rejection_reason: REASON_SUPPRESSED, decided_at: DECIDED, claim_token: null },
  ]);
  const [lead] = await t.leads.claimDue(DECIDED, 1, LEASE, "unused"); // none left: all decided
  expect(lead).toBeUndefined();
  const plainCallback = (await pg.handle.sql`SELECT status, payload, next_attempt_at::float8 AS at FROM callbacks WHERE lead_id = ${plain}`)[0];
  const plainLead = { id: plain, vendorId: VENDOR.id, phoneE164: "+12125550001", certificateUrl: null, vendorCampaignName: leadFields().vendorCampaignName };
  expect(plainCallback).toEqual({ status: "pending", payload: callbackPayload(plainLead, { status: "accepted" }, DECIDED), at: DECIDED });
  expect(await pg.handle.sql`SELECT count(*)::int AS n FROM callbacks WHERE status = 'pending'`).toEqual([{ n: 4 }]);
  // The accepted lead's claim stands as taken (its acceptance holds it from then on); the rejected ones' are dropped.
  expect(await pg.handle.sql`SELECT lead_id, claimed_at::float8 AS claimed_at FROM phone_claims`).toEqual([{ lead_id: plain, claimed_at: CREATED }]);
  expect(await t.phoneClaims.isHeldSince("+12125550001", DECIDED - 1)).toBe(true);
});

test("checks that change between the batch's read and its write: that lead is decided again alone, on the checks as they stand", async () => {
  const [stays, changes] = [await heldLead("+12125550011"), await heldLead("+12125550012")];
  const { job, decided } = decisionJob({
    ...batches.decisions,
    async checksOf(leads) {
      const checks = await batches.decisions.checksOf(leads);
      await t.suppressions.add({ phoneE164: "+12125550012", reason: null, createdAt: 0 }); // after the read
      return checks;
    },
  });
  await job.runOnce();
  expect(decided.sort()).toEqual(["accepted", "rejected"]);
  expect((await leadRows()).map((row) => [row.id, row.status, row.rejection_reason])).toEqual([
    [stays, "accepted", null],
    [changes, "rejected", REASON_SUPPRESSED],
  ]);
  expect(scriptsAlone).toBe(3); // the claim, then the changed lead's read and write
});

test("the write is fenced by the facts version alone: a lead whose version moved since the read is decided again alone", async () => {
  const [stays, moved] = [await heldLead("+12125550051"), await heldLead("+12125550052")];
  const { job, decided } = decisionJob({
    ...batches.decisions,
    async checksOf(leads) {
      const facts = await batches.decisions.checksOf(leads);
      await pg.handle.sql`UPDATE leads SET facts_version = facts_version + 1 WHERE id = ${moved}`;
      return facts;
    },
  });
  await job.runOnce();
  expect(decided.sort()).toEqual(["accepted", "accepted"]);
  expect((await leadRows()).map((row) => [row.id, row.status])).toEqual([
    [stays, "accepted"],
    [moved, "accepted"],
  ]);
  expect(scriptsAlone).toBe(3); // the claim, then the moved lead's read and write
});

test("a lead whose lease another worker took meanwhile is not recorded by the batch, nor by its script after", async () => {
  const [kept, lost] = [await heldLead("+12125550021"), await heldLead("+12125550022")];
  const { job, decided } = decisionJob({
    ...batches.decisions,
    async record(decisions, token, now) {
      await pg.handle.sql`UPDATE leads SET claim_token = 'another worker' WHERE id = ${lost}`;
      return batches.decisions.record(decisions, token, now);
    },
  });
  await job.runOnce();
  expect(decided).toEqual(["accepted"]);
  expect((await leadRows()).map((row) => [row.id, row.status, row.claim_token])).toEqual([
    [kept, "accepted", null],
    [lost, "pending", "another worker"],
  ]);
});

test("attempts of one turn are recorded by one statement: each kept and numbered, each callback moved on only under its own token", async () => {
  const ids = [await heldLead("+12125550031"), await heldLead("+12125550032"), await heldLead("+12125550033")];
  for (const id of ids) await t.callbacks.release(id, "{}", DECIDED);
  const due = await t.callbacks.claimDue(DECIDED, 3, LEASE, "token");
  await pg.handle.sql`UPDATE callbacks SET claim_token = 'another worker' WHERE lead_id = ${ids[2]!}`;
  const attempt = (statusCode: number) => ({
    startedAt: DECIDED,
    durationMs: 5,
    statusCode,
    error: statusCode === 200 ? null : `HTTP ${statusCode}`,
    responseExcerpt: "ok",
  });
  const [first, second, third] = due.sort((a, b) => ids.indexOf(a.leadId) - ids.indexOf(b.leadId));
  const kept = await Promise.all([
    batches.recordAttempt(first!, "token", attempt(200), { kind: "delivered" }, DECIDED + 1),
    batches.recordAttempt(second!, "token", attempt(500), { kind: "retry", at: DECIDED + 1_000 }, DECIDED + 1),
    batches.recordAttempt(third!, "token", attempt(200), { kind: "delivered" }, DECIDED + 1),
    batches.recordAttempt(second!, "token", attempt(500), { kind: "dead" }, DECIDED + 2), // the same callback again: after the batch
  ]);
  expect(kept).toEqual([true, true, false, false]);
  expect(scriptsAlone).toBe(1);
  expect(
    (
      await pg.handle
        .sql`SELECT lead_id, status, attempt_count, next_attempt_at::float8 AS next, delivered_at::float8 AS delivered, last_error, claim_token FROM callbacks`
    ).sort((a: { lead_id: string }, b: { lead_id: string }) => ids.indexOf(a.lead_id) - ids.indexOf(b.lead_id)),
  ).toEqual([
    { lead_id: ids[0], status: "delivered", attempt_count: 1, next: null, delivered: DECIDED + 1, last_error: null, claim_token: null },
    { lead_id: ids[1], status: "pending", attempt_count: 1, next: DECIDED + 1_000, delivered: null, last_error: "HTTP 500", claim_token: null },
    { lead_id: ids[2], status: "pending", attempt_count: 0, next: DECIDED, delivered: null, last_error: null, claim_token: "another worker" },
  ]);
  const attempts = await pg.handle.sql`SELECT callback_id, attempt_no, status_code FROM callback_attempts ORDER BY id`;
  expect(attempts.map((a: { callback_id: string; attempt_no: number }) => [a.callback_id, a.attempt_no]).sort()).toEqual(
    [
      [first!.id, 1],
      [second!.id, 1],
      [second!.id, 2],
      [third!.id, 1],
    ].sort(),
  );
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
  await t.leads.recordOperatorDecision(accepted, "accept", null);
  const { job, decided } = decisionJobOn(store, batches.decisions, { decidedAt: DECIDED, leaseMs: LEASE, policy: FINAL_RULES });
  await job.runOnce();
  expect(decided.sort()).toEqual(["accepted", "rejected"]);
  const rows = await leadRows();
  expect(rows.map((row) => [row.id, row.status, row.rejection_reason])).toEqual([
    [failing, "rejected", '["State not served: NY","Area 212"]'],
    [accepted, "accepted", null],
  ]);
  const payload = JSON.parse((await pg.handle.sql`SELECT payload FROM callbacks WHERE lead_id = ${failing}`)[0]!.payload);
  expect(payload.message).toEqual([{ error: "State not served: NY" }, { error: "Area 212" }]);
});

test("with final-stage checks in force the batch reads their answers: a fail and an error (on_error reject) reject, a final rule reads an intake check's reason", async () => {
  const leads = [await heldLead("+12125550001"), await heldLead("+12125550002"), await heldLead("+12125550003"), await heldLead("+12125550004")];
  const expected = await arrangeFinalChecks(
    leads,
    (script) => store.write(script),
    (leadId, json) => pg.handle.sql`UPDATE leads SET check_answers = ${json} WHERE id = ${leadId}`,
    CREATED + 1_000,
  );
  const { job, decided } = decisionJobOn(store, batches.decisions, { decidedAt: DECIDED, leaseMs: LEASE, policy: FINAL_CHECKS_POLICY });
  await job.runOnce();
  expect(decided).toHaveLength(4);
  expect((await leadRows()).map((row) => row.rejection_reason)).toEqual(expected);
});
