// Final results and callback delivery end to end: the real server (with its worker) and the mock
// vendor receiver, both on 127.0.0.1 ephemeral ports (docs/contract.md §7, §8); on SQLite, or on PostgreSQL
// with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { recordOperatorDecision } from "../../src/final-results/operator.ts";
import { replayCallback } from "../../src/operations/callbacks.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { addSuppression } from "../../src/suppression/index.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { op } from "../../src/db/script.ts";
import { get, post, startApiTestServer, startTestServer, TEST_BACKEND, VENDOR, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const SCHEDULE = [20, 20, 20, 20, 20, 20, 20]; // the default schedule's shape (7 waits, 8 attempts), in ms
let server: ApiTestServer;
let receiver: MockReceiver;
let secret: string;

beforeAll(async () => {
  server = await startApiTestServer({
    holdPeriodMs: 100,
    workerPollIntervalMs: 20,
    callbackRetrySchedule: SCHEDULE,
    callbackTimeoutMs: 300,
    allowPrivateCallbacks: true,
  });
  secret = (await server.store.read((t) => op(t.vendors.findByName(VENDOR.name))))!.signingSecret;
  receiver = startMockReceiver({ secret });
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});
beforeEach(() => receiver.resetBehaviour());

let pathCounter = 0;
const freshPath = () => `/cb/${++pathCounter}`;

async function submit(overrides: Record<string, unknown> = {}): Promise<string> {
  const answer = await post(`${server.url}/v1/postLead`, validLead(overrides), { authorization: server.auth });
  expect(answer.status).toBe(200);
  return answer.body.lead_id;
}

const detailOf = (leadId: string, on: ApiTestServer = server) => on.store.read((t) => op(t.callbacks.detailOf(leadId)));
const callbackOf = async (leadId: string) => (await detailOf(leadId))?.callback as Record<string, any>;
/** The lead's callback's attempts, by attempt_no. */
const attemptsOf = async (leadId: string) => ((await detailOf(leadId))?.attempts ?? []) as Record<string, any>[];
const callbackStatus = (leadId: string, status: string) => async () => (await callbackOf(leadId))?.status === status;
const leadOf = async (leadId: string, on: ApiTestServer = server) => (await on.store.read((t) => op(t.leads.detail(leadId))))!;

describe("final result callbacks", () => {
  test("an accepted lead → one signed callback with the contract's body and headers", async () => {
    const path = freshPath();
    const phone = uniquePhone();
    const leadId = await submit({ phone_number: phone, call_back_url: `${receiver.url.origin}${path}`, vendor_campaign_name: "camp-1" });
    const [received] = await receiver.waitFor(1, { path });
    expect(received!.signature).toEqual({ valid: true });
    expect(received!.headers).toMatchObject({
      "content-type": "application/json",
      "user-agent": "lead-ingress/0.1.0",
      "webhook-id": (await callbackOf(leadId)).id,
    });
    // The reference implementation accepts the signature, too.
    expect(() => new Webhook(secret).verify(received!.body, received!.headers)).not.toThrow();
    expect(received!.json).toEqual({
      lead_id: leadId,
      success_bit: true,
      status: "accepted",
      message: "Lead accepted.",
      phone_number: (await leadOf(leadId)).phone_e164,
      vendor_campaign_name: "camp-1",
      decided_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    await waitUntil(callbackStatus(leadId, "delivered"));
    expect(receiver.received(path)).toHaveLength(1);
    expect(await get(`${server.url}/v1/leads/${leadId}`, { authorization: server.auth })).toMatchObject({
      body: { success_bit: true, status: "accepted", message: "Lead accepted." },
    });
  });

  test("a number suppressed during the hold → rejected after posting, with a rejection callback", async () => {
    const path = freshPath();
    const phone = uniquePhone();
    const leadId = await submit({ phone_number: phone, call_back_url: `${receiver.url.origin}${path}` });
    await addSuppression(server.store, phone, null, "test");
    const [received] = await receiver.waitFor(1, { path });
    expect(received!.json).toMatchObject({
      lead_id: leadId,
      success_bit: false,
      status: "rejected",
      message: [{ error: "Phone number is on the suppression list." }],
    });
    expect(await get(`${server.url}/v1/leads/${leadId}`, { authorization: server.auth })).toMatchObject({
      status: 200,
      body: { success_bit: false, status: "rejected", message: [{ error: "Phone number is on the suppression list." }] },
    });
  });

  test("an operator's reject during the hold → rejection callback with the reason; the number is free again", async () => {
    // A server of its own with a hold of 2 s: within the file's 100 ms a busy machine could let the
    // worker accept the lead before the test's reject was written.
    const held = await startApiTestServer({ holdPeriodMs: 2_000, workerPollIntervalMs: 20, allowPrivateCallbacks: true });
    try {
      const path = freshPath();
      const phone = uniquePhone();
      const answer = await post(`${held.url}/v1/postLead`, validLead({ phone_number: phone, call_back_url: `${receiver.url.origin}${path}` }), {
        authorization: held.auth,
      });
      expect(answer.status).toBe(200);
      await recordOperatorDecision(held.store, answer.body.lead_id, "reject", "duplicate in CRM", "test");
      const [received] = await receiver.waitFor(1, { path });
      expect(received!.json).toMatchObject({ status: "rejected", message: [{ error: "Rejected by operator: duplicate in CRM" }] });
      expect((await post(`${held.url}/v1/prePing`, { phone_number: phone }, { authorization: held.auth })).status).toBe(200);
    } finally {
      await held.stop();
    }
  });

  test("a lead without call_back_url is decided and readable, and nothing is sent", async () => {
    const { call_back_url: _url, ...body } = validLead();
    const answer = await post(`${server.url}/v1/postLead`, body, { authorization: server.auth });
    const lookup = () => get(`${server.url}/v1/leads/${answer.body.lead_id}`, { authorization: server.auth });
    // Readable at once: pending, or already accepted when the machine took longer than the 100 ms
    // hold to answer (the pending state itself is intake.test.ts's and final-rules.test.ts's).
    expect(["pending", "accepted"]).toContain((await lookup()).body.status);
    await waitUntil(async () => (await lookup()).body.status === "accepted");
    expect(await detailOf(answer.body.lead_id)).toBeNull();
  });
});

describe("delivery and retries", () => {
  test("receiver fails 3 times then succeeds → delivered on attempt 4, every attempt with the same webhook-id", async () => {
    const path = freshPath();
    receiver.setBehaviour({ path, status: 503, failFirst: 3 });
    const leadId = await submit({ call_back_url: `${receiver.url.origin}${path}` });
    await waitUntil(callbackStatus(leadId, "delivered"));
    const received = receiver.received(path);
    expect(received.map((r) => r.answer.action === "respond" && r.answer.status)).toEqual([503, 503, 503, 200]);
    expect(new Set(received.map((r) => r.headers["webhook-id"]))).toEqual(new Set([(await callbackOf(leadId)).id]));
    expect(received.every((r) => r.signature?.valid)).toBe(true);
    expect((await attemptsOf(leadId)).map((a) => [a.attempt_no, a.status_code])).toEqual([
      [1, 503],
      [2, 503],
      [3, 503],
      [4, 200],
    ]);
  });

  test("a receiver that always fails → dead after the whole schedule; replay then delivers it", async () => {
    const path = freshPath();
    receiver.setBehaviour({ path, status: 500, body: "down for maintenance" });
    const leadId = await submit({ call_back_url: `${receiver.url.origin}${path}` });
    await waitUntil(callbackStatus(leadId, "dead"));
    const callback = await callbackOf(leadId);
    const attempts = await attemptsOf(leadId);
    expect(attempts).toHaveLength(SCHEDULE.length + 1);
    expect(attempts[0]).toMatchObject({ status_code: 500, error: "HTTP 500", response_excerpt: "down for maintenance" });
    expect(callback).toMatchObject({ last_error: "HTTP 500", attempt_count: SCHEDULE.length + 1 });

    receiver.resetBehaviour(path);
    expect((await replayCallback(server.store, leadId, "test", Date.now())).kind).toBe("replayed");
    await waitUntil(callbackStatus(leadId, "delivered"));
    expect(receiver.received(path).at(-1)!.headers["webhook-id"]).toBe(callback.id);
  });

  test("410 Gone stops retrying at once", async () => {
    const path = freshPath();
    receiver.setBehaviour({ path, status: 410 });
    const leadId = await submit({ call_back_url: `${receiver.url.origin}${path}` });
    await waitUntil(callbackStatus(leadId, "dead"));
    await Bun.sleep(100); // several schedule steps: no further attempt may come
    expect(receiver.received(path)).toHaveLength(1);
  });

  test("a hanging receiver → the attempt times out and the timeout is recorded", async () => {
    const path = freshPath();
    receiver.setBehaviour({ path, hang: true, failFirst: 1 });
    const leadId = await submit({ call_back_url: `${receiver.url.origin}${path}` });
    await waitUntil(callbackStatus(leadId, "delivered"));
    const [first, second] = await attemptsOf(leadId);
    expect(first).toMatchObject({ status_code: null, error: "Timed out after 300 ms" });
    expect(first!.duration_ms).toBeGreaterThanOrEqual(290);
    expect(second).toMatchObject({ status_code: 200 });
  });

  test("a receiver that closes the connection → recorded as an error, then retried", async () => {
    const path = freshPath();
    receiver.setBehaviour({ path, close: true, failFirst: 1 });
    const leadId = await submit({ call_back_url: `${receiver.url.origin}${path}` });
    await waitUntil(callbackStatus(leadId, "delivered"));
    const [first] = await attemptsOf(leadId);
    expect(first).toMatchObject({ status_code: null, error: expect.stringContaining("ECONNRESET") });
  });

  test("429 with Retry-After → the next attempt waits at least that long", async () => {
    const path = freshPath();
    receiver.setBehaviour({ path, status: 429, retryAfter: "1", failFirst: 1 });
    const leadId = await submit({ call_back_url: `${receiver.url.origin}${path}` });
    await waitUntil(callbackStatus(leadId, "delivered"), 10_000);
    const [first, second] = await attemptsOf(leadId);
    expect(first!.status_code).toBe(429);
    expect(second!.started_at - first!.started_at).toBeGreaterThanOrEqual(1000);
  });
});

// The stored URL is changed behind the service's back with SQL: SQLite only.
describe.skipIf(TEST_BACKEND === "postgres")("SSRF guard", () => {
  test("with private callbacks not allowed, a callback whose address is loopback at delivery is refused and the refusal recorded", async () => {
    const guarded = await startTestServer({ holdPeriodMs: 500, workerPollIntervalMs: 20, callbackRetrySchedule: [10] });
    try {
      const path = freshPath();
      const answer = await post(`${guarded.url}/v1/postLead`, validLead({ call_back_url: "https://vendor.example.com/callback" }), {
        authorization: guarded.auth,
      });
      // Intake refuses a literal loopback URL; a name resolving to one (or a row stored before
      // intake checked) reaches delivery: the stored URL is changed to one during the hold.
      guarded.db.sqlite.run("UPDATE callbacks SET url = ? WHERE lead_id = ?", [`${receiver.url.origin}${path}`, answer.body.lead_id]);
      const callback = () => guarded.db.sqlite.query("SELECT * FROM callbacks WHERE lead_id = ?").get(answer.body.lead_id) as Record<string, any>;
      await waitUntil(() => callback().status === "dead");
      const attempts = guarded.db.sqlite.query("SELECT error FROM callback_attempts WHERE callback_id = ?").all(callback().id);
      expect(attempts).toEqual([{ error: "Refused callback address 127.0.0.1 (loopback)" }, { error: "Refused callback address 127.0.0.1 (loopback)" }]);
      expect(receiver.received(path)).toEqual([]);
    } finally {
      await guarded.stop();
    }
  });
});

describe("certificate verification (when enabled)", () => {
  test("a certificate_url that does not answer 2xx → rejected; one that does → accepted", async () => {
    const checking = await startApiTestServer({ holdPeriodMs: 50, workerPollIntervalMs: 20, verifyCertificates: true, allowPrivateCallbacks: true });
    try {
      const bad = freshPath();
      receiver.setBehaviour({ path: bad, status: 404 });
      const submitWith = async (certificate: string) =>
        (await post(`${checking.url}/v1/postLead`, validLead({ certificate_url: certificate }), { authorization: checking.auth })).body.lead_id;
      const rejected = await submitWith(`${receiver.url.origin}${bad}`);
      const accepted = await submitWith(`${receiver.url.origin}${freshPath()}`);
      const statusOf = async (id: string) => {
        const { status, rejection_reason } = await leadOf(id, checking);
        return { status, rejection_reason };
      };
      await waitUntil(async () => (await statusOf(rejected)).status !== "pending" && (await statusOf(accepted)).status !== "pending");
      expect(await statusOf(rejected)).toEqual({ status: "rejected", rejection_reason: "Certificate URL could not be verified: HTTP 404" });
      expect(await statusOf(accepted)).toEqual({ status: "accepted", rejection_reason: null });
    } finally {
      await checking.stop();
    }
  });
});

describe("a receiver that answers 2xx but stalls its body", () => {
  test("is delivered: the status line decides, the excerpt is best effort", async () => {
    const stalling = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(new ReadableStream({ start: (controller) => controller.enqueue(new TextEncoder().encode("ok, and then nothing")) }), { status: 200 }),
    });
    try {
      const leadId = await submit({ call_back_url: `http://127.0.0.1:${stalling.port}/stall` });
      await waitUntil(async () => (await callbackOf(leadId))?.status !== "held" && (await attemptsOf(leadId)).length > 0, 15_000);
      expect((await callbackOf(leadId)).status).toBe("delivered");
      expect(await attemptsOf(leadId)).toEqual([expect.objectContaining({ status_code: 200, error: null })]);
    } finally {
      stalling.stop(true);
    }
  });
});
