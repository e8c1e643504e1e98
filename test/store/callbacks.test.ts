// The callback table, on both backends: hold, release, claims, fenced outcomes, replay.
import { beforeEach, describe, expect, test } from "bun:test";
import { nextStep } from "../../src/callbacks/next-step.ts";
import type { AttemptRecord } from "../../src/store/callbacks/index.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { leadFields, vendorRow } from "../helpers/tables.ts";

const VENDOR = vendorRow("vendor-a");
const CREATED = Date.UTC(2026, 0, 1);

describeOnBothBackends("callbacks", (backend) => {
  let decidedAt: number;
  const attempt = (fields: Partial<AttemptRecord> = {}): AttemptRecord => ({
    startedAt: decidedAt,
    durationMs: 5,
    statusCode: 500,
    error: "HTTP 500",
    responseExcerpt: "oops",
    ...fields,
  });
  const callback = async (leadId: string) => (await backend.rows("SELECT * FROM callbacks WHERE lead_id = $1", leadId))[0]!;
  const attempts = (callbackId: string) => backend.rows("SELECT * FROM callback_attempts WHERE callback_id = $1 ORDER BY attempt_no", callbackId);

  /** A lead accepted with a call_back_url: its callback is held. */
  async function acceptedLead(madeAt?: number): Promise<string> {
    const id = Bun.randomUUIDv7("hex", madeAt);
    const t = backend.tables;
    await t.leads.insertPending(leadFields(), { id, vendorId: VENDOR.id, rawRequest: "{}", createdAt: CREATED, decideAfter: CREATED + 60_000 });
    await t.callbacks.hold({ id: `msg_${id}`, leadId: id, vendorId: VENDOR.id, url: "https://example.com/hook" }, CREATED);
    return id;
  }

  /** A lead accepted and decided, so its callback is pending. */
  async function decidedLead(madeAt?: number): Promise<string> {
    const id = await acceptedLead(madeAt);
    decidedAt = CREATED + 60_000;
    await backend.tables.callbacks.release(id, '{"lead_id":"x"}', decidedAt);
    return id;
  }

  beforeEach(async () => {
    await backend.tables.vendors.insert(VENDOR);
  });

  test("hold stores a lead's callback held, and release makes it due once, with its payload", async () => {
    const t = backend.tables;
    const leadId = await acceptedLead();
    expect(await callback(leadId)).toMatchObject({ status: "held", payload: null, attempt_count: 0, next_attempt_at: null, created_at: CREATED });
    await t.callbacks.release(leadId, "{}", CREATED + 5);
    expect(await callback(leadId)).toMatchObject({ status: "pending", payload: "{}", next_attempt_at: CREATED + 5, updated_at: CREATED + 5 });
    await t.callbacks.release(leadId, '{"again":1}', CREATED + 9);
    expect(await callback(leadId)).toMatchObject({ payload: "{}", next_attempt_at: CREATED + 5 });
  });

  test("a held callback (lead not decided yet) is never claimed", async () => {
    await acceptedLead();
    expect(await backend.tables.callbacks.claimDue(CREATED + 10 * 86_400_000, 10, 1000, "t")).toEqual([]);
  });

  test("a decided lead's callback is claimed with its payload and the vendor's signing secret", async () => {
    const t = backend.tables;
    const leadId = await decidedLead();
    const [due] = await t.callbacks.claimDue(decidedAt, 10, 1000, "t");
    expect(due).toMatchObject({
      leadId,
      payload: '{"lead_id":"x"}',
      attemptCount: 0,
      signingSecret: VENDOR.signingSecret,
      previousSigningSecret: null,
      previousSecretUntil: null,
    });
    expect(await t.callbacks.claimDue(decidedAt, 10, 1000, "t2")).toEqual([]);
  });

  test("a claim reads a rotated vendor's previous secret and its overlap's end (as a number) beside the new one", async () => {
    const t = backend.tables;
    const leadId = await decidedLead();
    const rotated = { signingSecret: "whsec_bmV3", previousSigningSecret: VENDOR.signingSecret, previousSecretUntil: decidedAt + 86_400_000 };
    expect(await t.vendors.setSigningSecrets(VENDOR.id, VENDOR.signingSecret, rotated, decidedAt)).toBe(true);
    const [due] = await t.callbacks.claimDue(decidedAt, 10, 1000, "t");
    expect(due).toMatchObject({ leadId, ...rotated });
  });

  test("a due callback stored under another key than its lead's is not claimed: it could be neither leased nor finished", async () => {
    const leadId = await decidedLead();
    await backend.rows("UPDATE callbacks SET lead_key = lead_key + 1 WHERE lead_id = $1", leadId);
    expect(await backend.tables.callbacks.claimDue(decidedAt, 10, 1000, "t")).toEqual([]);
    expect(await callback(leadId)).toMatchObject({ status: "pending", claim_token: null });
  });

  describe("recordAttempt", () => {
    test("retry: the attempt is recorded and the callback waits for its next attempt", async () => {
      const t = backend.tables;
      const leadId = await decidedLead();
      const [due] = await t.callbacks.claimDue(decidedAt, 10, 1000, "t");
      expect(await t.callbacks.recordAttempt(due!, "t", attempt(), { kind: "retry", at: decidedAt + 5000 }, decidedAt)).toBe(true);
      expect(await callback(leadId)).toMatchObject({
        status: "pending",
        attempt_count: 1,
        next_attempt_at: decidedAt + 5000,
        last_error: "HTTP 500",
        claim_token: null,
      });
      expect(await attempts(due!.id)).toEqual([
        expect.objectContaining({ attempt_no: 1, status_code: 500, error: "HTTP 500", response_excerpt: "oops", duration_ms: 5 }),
      ]);
      expect(await t.callbacks.claimDue(decidedAt + 4999, 10, 1000, "t2")).toEqual([]);
      expect(await t.callbacks.claimDue(decidedAt + 5000, 10, 1000, "t2")).toHaveLength(1);
    });

    test("delivered and dead are final", async () => {
      const t = backend.tables;
      const first = await decidedLead();
      const [due] = await t.callbacks.claimDue(decidedAt, 10, 1000, "t");
      await t.callbacks.recordAttempt(due!, "t", attempt({ statusCode: 200, error: null }), { kind: "delivered" }, decidedAt);
      expect(await callback(first)).toMatchObject({ status: "delivered", delivered_at: decidedAt, attempt_count: 1 });
      const second = await decidedLead();
      const [other] = await t.callbacks.claimDue(decidedAt, 10, 1000, "u");
      await t.callbacks.recordAttempt(other!, "u", attempt({ statusCode: 410, error: "HTTP 410" }), { kind: "dead" }, decidedAt);
      expect(await callback(second)).toMatchObject({ status: "dead", last_error: "HTTP 410" });
      expect(await t.callbacks.claimDue(decidedAt + 86_400_000, 10, 1000, "v")).toEqual([]);
    });

    test("after its lease expired, a worker's outcome is recorded as history but changes nothing", async () => {
      const t = backend.tables;
      const leadId = await decidedLead();
      const [stale] = await t.callbacks.claimDue(decidedAt, 10, 1000, "old");
      const [fresh] = await t.callbacks.claimDue(decidedAt + 1001, 10, 1000, "new");
      expect(fresh!.id).toBe(stale!.id);
      expect(await t.callbacks.recordAttempt(stale!, "old", attempt({ statusCode: 200, error: null }), { kind: "delivered" }, decidedAt)).toBe(false);
      expect(await callback(leadId)).toMatchObject({ status: "pending", claim_token: "new", attempt_count: 0 });
      expect(await attempts(stale!.id)).toHaveLength(1);
    });
  });

  test("replay queues a dead or delivered callback again with a fresh schedule, and nothing else", async () => {
    const t = backend.tables;
    const leadId = await decidedLead();
    const [due] = await t.callbacks.claimDue(decidedAt, 10, 1000, "t");
    expect(await t.callbacks.replay(due!.leadId, decidedAt)).toBe(false);
    await t.callbacks.recordAttempt(due!, "t", attempt(), { kind: "dead" }, decidedAt);
    expect(await t.callbacks.replay(due!.leadId, decidedAt + 10)).toBe(true);
    expect(await callback(leadId)).toMatchObject({ status: "pending", attempt_count: 1, next_attempt_at: decidedAt + 10 });
    expect(await t.callbacks.claimDue(decidedAt + 10, 10, 1000, "t2")).toHaveLength(1);
  });

  test("a replay keeps the attempts counted and restarts only the retry schedule", async () => {
    const t = backend.tables;
    const backoff = { scheduleMs: [5_000, 300_000], jitter: 0 };
    const leadId = await decidedLead();
    /** Claims the callback at `at`, fails its attempt there, and records what the schedule says next. */
    const failAt = async (at: number) => {
      const [due] = await t.callbacks.claimDue(at, 10, 1000, `at-${at}`);
      const step = nextStep({ statusCode: 500, retryAfterMs: null }, due!.attemptCount + 1, backoff, at);
      await t.callbacks.recordAttempt(due!, `at-${at}`, attempt({ startedAt: at }), step, at);
      return step;
    };
    expect(await failAt(decidedAt)).toEqual({ kind: "retry", at: decidedAt + 5_000 });
    expect(await failAt(decidedAt + 5_000)).toEqual({ kind: "retry", at: decidedAt + 305_000 });
    expect(await failAt(decidedAt + 305_000)).toEqual({ kind: "dead" });
    expect(await callback(leadId)).toMatchObject({ status: "dead", attempt_count: 3 });

    const replayedAt = decidedAt + 3_000_000;
    expect(await t.callbacks.replay(leadId, replayedAt)).toBe(true);
    expect(await failAt(replayedAt)).toEqual({ kind: "retry", at: replayedAt + 5_000 });
    expect(await callback(leadId)).toMatchObject({ status: "pending", attempt_count: 4, next_attempt_at: replayedAt + 5_000 });
    expect((await t.callbacks.list({ status: "pending", limit: 10 }))[0]).toMatchObject({ lead_id: leadId, attempt_count: 4 });
    expect((await t.callbacks.detailOf(leadId))!.callback).toMatchObject({ attempt_count: 4 });
    expect(await attempts(`msg_${leadId}`)).toHaveLength(4);
  });

  test("depth counts the pending and the due (numbers, not strings), and the oldest decision among them", async () => {
    const t = backend.tables;
    expect(await t.callbacks.depth(CREATED)).toEqual({ pending: 0, due: 0, oldestDecidedAt: null });
    const [first, second] = [await decidedLead(), await decidedLead()];
    await backend.rows("UPDATE leads SET decided_at = $1 WHERE id = $2", decidedAt - 7, first);
    await backend.rows("UPDATE leads SET decided_at = $1 WHERE id = $2", decidedAt, second);
    const [due] = await t.callbacks.claimDue(decidedAt, 1, 1000, "t");
    await t.callbacks.recordAttempt(due!, "t", attempt(), { kind: "retry", at: decidedAt + 5000 }, decidedAt);
    expect(await t.callbacks.depth(decidedAt)).toEqual({ pending: 2, due: 1, oldestDecidedAt: decidedAt - 7 });
  });

  test("depth's oldest decision is exact where leads were decided out of their intake's order", async () => {
    const t = backend.tables;
    const decide = (id: string, at: number) => backend.rows("UPDATE leads SET decided_at = $1 WHERE id = $2", at, id);
    // Made at 0, 1 and 2 s; decided at 30, 20 and 40 s: the second one made waited least.
    const [first, second, third] = [await decidedLead(CREATED), await decidedLead(CREATED + 1_000), await decidedLead(CREATED + 2_000)];
    await decide(first, CREATED + 30_000);
    await decide(second, CREATED + 20_000);
    await decide(third, CREATED + 40_000);
    expect(await t.callbacks.depth(decidedAt)).toEqual({ pending: 3, due: 3, oldestDecidedAt: CREATED + 20_000 });
  });

  test("the operator's views: list, find by lead or webhook id, dead since, and the detail with its attempts", async () => {
    const t = backend.tables;
    const leadId = await decidedLead();
    const [due] = await t.callbacks.claimDue(decidedAt, 10, 1000, "t");
    await t.callbacks.recordAttempt(due!, "t", attempt({ statusCode: 410, error: "HTTP 410" }), { kind: "dead" }, decidedAt + 1);
    expect(await t.callbacks.list({ status: "dead", limit: 10 })).toEqual([
      {
        id: due!.id,
        lead_id: leadId,
        vendor: VENDOR.name,
        url: "https://example.com/hook",
        status: "dead",
        attempt_count: 1,
        next_attempt_at: null,
        last_error: "HTTP 410",
        created_at: CREATED,
        updated_at: decidedAt + 1,
        delivered_at: null,
        discarded_at: null,
      },
    ]);
    expect(await t.callbacks.list({ status: "pending", limit: 10 })).toEqual([]);
    expect(await t.callbacks.find(leadId)).toEqual({ id: due!.id, leadId, status: "dead" });
    expect(await t.callbacks.find(due!.id)).toEqual({ id: due!.id, leadId, status: "dead" });
    expect(await t.callbacks.find("nothing")).toBeNull();
    expect(await t.callbacks.deadSince(decidedAt + 1)).toEqual([leadId]);
    expect(await t.callbacks.deadSince(decidedAt + 2)).toEqual([]);
    const detail = (await t.callbacks.detailOf(leadId))!;
    expect(detail.callback).toMatchObject({ id: due!.id, lead_id: leadId, status: "dead", attempt_count: 1, updated_at: decidedAt + 1 });
    expect(detail.callback).not.toHaveProperty("lead_key");
    expect(detail.attempts).toEqual([{ attempt_no: 1, started_at: decidedAt, status_code: 410, duration_ms: 5, error: "HTTP 410", response_excerpt: "oops" }]);
    expect(await t.callbacks.detailOf(Bun.randomUUIDv7())).toBeNull();
  });

  test("a discarded dead callback no longer counts as waiting nor is replayed by 'every dead one'; replayed by itself, it is pending again", async () => {
    const t = backend.tables;
    const leadId = await decidedLead();
    const [due] = await t.callbacks.claimDue(decidedAt, 10, 1000, "t");
    await t.callbacks.recordAttempt(due!, "t", attempt({ statusCode: 410, error: "HTTP 410" }), { kind: "dead" }, decidedAt + 1);
    expect(due!.vendorId).toBe(VENDOR.id);
    expect(await t.callbacks.countDead()).toBe(1);
    expect(await t.callbacks.discard(leadId, decidedAt + 5)).toBe(true);
    expect(await t.callbacks.discard(leadId, decidedAt + 6)).toBe(false); // once
    expect(await t.callbacks.countDead()).toBe(0);
    expect(await t.callbacks.deadSince(0)).toEqual([]);
    expect((await t.callbacks.list({ status: "dead", limit: 10 }))[0]).toMatchObject({ lead_id: leadId, status: "dead", discarded_at: decidedAt + 5 });
    expect(await t.callbacks.replay(leadId, decidedAt + 10)).toBe(true);
    expect(await callback(leadId)).toMatchObject({ status: "pending", discarded_at: null });
    expect(await t.callbacks.discard(leadId, decidedAt + 11)).toBe(false); // only a dead one
  });
});
