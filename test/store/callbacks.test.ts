// The callback table on a real (in-memory) database: hold, release, claims, fenced outcomes, replay.
import { beforeEach, describe, expect, test } from "bun:test";
import type { Tables } from "../../src/store/index.ts";
import type { AttemptRecord } from "../../src/store/callbacks/index.ts";
import { intakeHarness, type IntakeHarness } from "../helpers/intake.ts";
import { now, tablesOf } from "../helpers/tables.ts";
import { validLead } from "../helpers/leads.ts";

let h: IntakeHarness;
let t: Tables;
let decidedAt: number;
const attempt = (fields: Partial<AttemptRecord> = {}): AttemptRecord => ({ startedAt: decidedAt, durationMs: 5, statusCode: 500, error: "HTTP 500", responseExcerpt: "oops", ...fields });
const callback = (leadId: string) => h.database.sqlite.query("SELECT * FROM callbacks WHERE lead_id = ?").get(leadId) as Record<string, any>;
const attempts = (callbackId: string) => h.database.sqlite.query("SELECT * FROM callback_attempts WHERE callback_id = ? ORDER BY attempt_no").all(callbackId) as Record<string, any>[];

/** A lead accepted and decided, so its callback is pending. */
async function decidedLead(): Promise<string> {
  const id = await h.accept(validLead());
  decidedAt = h.now.value + 60_000;
  now(t.callbacks.release(id, '{"lead_id":"x"}', decidedAt));
  return id;
}

beforeEach(async () => {
  h = await intakeHarness();
  t = tablesOf(h.database.db);
});

test("hold stores a lead's callback held, and release makes it due once, with its payload", async () => {
  const leadId = await h.accept(validLead());
  expect(callback(leadId)).toMatchObject({ status: "held", payload: null, attempt_count: 0, next_attempt_at: null, created_at: h.now.value });
  now(t.callbacks.release(leadId, "{}", h.now.value + 5));
  expect(callback(leadId)).toMatchObject({ status: "pending", payload: "{}", next_attempt_at: h.now.value + 5, updated_at: h.now.value + 5 });
  now(t.callbacks.release(leadId, "{\"again\":1}", h.now.value + 9));
  expect(callback(leadId)).toMatchObject({ payload: "{}", next_attempt_at: h.now.value + 5 });
});

test("a held callback (lead not decided yet) is never claimed", async () => {
  await h.accept(validLead());
  expect(now(t.callbacks.claimDue(h.now.value + 10 * 86_400_000, 10, 1000, "t"))).toEqual([]);
});

test("a decided lead's callback is claimed with its payload and the vendor's signing secret", async () => {
  const leadId = await decidedLead();
  const [due] = now(t.callbacks.claimDue(decidedAt, 10, 1000, "t"));
  expect(due).toMatchObject({ leadId, payload: '{"lead_id":"x"}', attemptCount: 0, signingSecret: h.vendor.signingSecret });
  expect(now(t.callbacks.claimDue(decidedAt, 10, 1000, "t2"))).toEqual([]);
});

test("a due callback stored under another key than its lead's is not claimed: it could be neither leased nor finished", async () => {
  const leadId = await decidedLead();
  h.database.sqlite.run("UPDATE callbacks SET lead_key = lead_key + 1 WHERE lead_id = ?", [leadId]);
  expect(now(t.callbacks.claimDue(decidedAt, 10, 1000, "t"))).toEqual([]);
  expect(callback(leadId)).toMatchObject({ status: "pending", claim_token: null });
});

describe("recordAttempt", () => {
  test("retry: the attempt is recorded and the callback waits for its next attempt", async () => {
    const leadId = await decidedLead();
    const [due] = now(t.callbacks.claimDue(decidedAt, 10, 1000, "t"));
    expect(now(t.callbacks.recordAttempt(due!, "t", attempt(), { kind: "retry", at: decidedAt + 5000 }, decidedAt))).toBe(true);
    expect(callback(leadId)).toMatchObject({ status: "pending", attempt_count: 1, next_attempt_at: decidedAt + 5000, last_error: "HTTP 500", claim_token: null });
    expect(attempts(due!.id)).toEqual([expect.objectContaining({ attempt_no: 1, status_code: 500, error: "HTTP 500", response_excerpt: "oops", duration_ms: 5 })]);
    expect(now(t.callbacks.claimDue(decidedAt + 4999, 10, 1000, "t2"))).toEqual([]);
    expect(now(t.callbacks.claimDue(decidedAt + 5000, 10, 1000, "t2"))).toHaveLength(1);
  });

  test("delivered and dead are final", async () => {
    const first = await decidedLead();
    const [due] = now(t.callbacks.claimDue(decidedAt, 10, 1000, "t"));
    now(t.callbacks.recordAttempt(due!, "t", attempt({ statusCode: 200, error: null }), { kind: "delivered" }, decidedAt));
    expect(callback(first)).toMatchObject({ status: "delivered", delivered_at: decidedAt, attempt_count: 1 });
    const second = await decidedLead();
    const [other] = now(t.callbacks.claimDue(decidedAt, 10, 1000, "u"));
    now(t.callbacks.recordAttempt(other!, "u", attempt({ statusCode: 410, error: "HTTP 410" }), { kind: "dead" }, decidedAt));
    expect(callback(second)).toMatchObject({ status: "dead", last_error: "HTTP 410" });
    expect(now(t.callbacks.claimDue(decidedAt + 86_400_000, 10, 1000, "v"))).toEqual([]);
  });

  test("after its lease expired, a worker's outcome is recorded as history but changes nothing", async () => {
    const leadId = await decidedLead();
    const [stale] = now(t.callbacks.claimDue(decidedAt, 10, 1000, "old"));
    const [fresh] = now(t.callbacks.claimDue(decidedAt + 1001, 10, 1000, "new"));
    expect(fresh!.id).toBe(stale!.id);
    expect(now(t.callbacks.recordAttempt(stale!, "old", attempt({ statusCode: 200, error: null }), { kind: "delivered" }, decidedAt))).toBe(false);
    expect(callback(leadId)).toMatchObject({ status: "pending", claim_token: "new", attempt_count: 0 });
    expect(attempts(stale!.id)).toHaveLength(1);
  });
});

test("replay queues a dead or delivered callback again with a fresh schedule, and nothing else", async () => {
  const leadId = await decidedLead();
  const [due] = now(t.callbacks.claimDue(decidedAt, 10, 1000, "t"));
  expect(now(t.callbacks.replay(due!.leadId, decidedAt))).toBe(false);
  now(t.callbacks.recordAttempt(due!, "t", attempt(), { kind: "dead" }, decidedAt));
  expect(now(t.callbacks.replay(due!.leadId, decidedAt + 10))).toBe(true);
  expect(callback(leadId)).toMatchObject({ status: "pending", attempt_count: 0, next_attempt_at: decidedAt + 10 });
  expect(now(t.callbacks.claimDue(decidedAt + 10, 10, 1000, "t2"))).toHaveLength(1);
});

test("releaseLeases gives back a token's claims at once", async () => {
  await decidedLead();
  now(t.callbacks.claimDue(decidedAt, 10, 60_000, "leaving"));
  expect(now(t.callbacks.claimDue(decidedAt, 10, 1000, "other"))).toEqual([]);
  now(t.callbacks.releaseLeases("leaving"));
  expect(now(t.callbacks.claimDue(decidedAt, 10, 1000, "other"))).toHaveLength(1);
});
