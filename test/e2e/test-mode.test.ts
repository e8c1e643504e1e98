// Test mode (docs/contract.md §12): a postLead or prePing sent with `X-Test-Lead: true`, or to its
// /v1/test/ route, gets the real answer (every check of §2 runs), claims no number and takes no cap
// slot; a test lead is stored marked as a test, decided after the short test hold (the real hold is
// far longer here), its callback signed as any and carrying "test": true. Counted apart in metrics.
// The real server with its worker and the mock receiver on 127.0.0.1 ephemeral ports; on SQLite,
// or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { ensureChecksSecret } from "../../src/checks/secret.ts";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { cli } from "../helpers/cli.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { installPolicy } from "../helpers/policy.ts";
import { get, post, startApiTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";

const TEST_HOLD_MS = 1_000;
/** Real leads stay pending throughout: only a test lead's short hold can end here. */
const REAL_HOLD_MS = 10 * 60_000;

/** The policy, its final-stage check asking the mock receiver at `origin`. */
const policy = (origin: string) => ({
  checks: [
    { name: "tm-dnc", stage: "final", url: `${origin}/check/tm-dnc`, send: ["phone_number"], timeout_ms: 500, campaigns: ["tm-checked"] },
    { name: "tm-scrub", stage: "intake", url: `${origin}/check/tm-scrub`, send: ["phone_number"], timeout_ms: 500, campaigns: ["tm-scrubbed"] },
  ],
  rules: [
    { name: "states-served", campaigns: ["tm-ruled"], require: { field: "state", op: "in", value: ["CA", "NY"] }, reason: "State not served: {state}" },
    {
      name: "home-owner",
      stage: "final",
      campaigns: ["tm-final"],
      require: { field: "extra_data.home_owner", op: "equals", value: true },
      reason: "Not a home owner",
    },
  ],
  caps: [
    { name: "tm-leads", campaigns: ["tm-capped"], counts: "leads", max: 1, per: "day", reason: "Daily cap reached" },
    { name: "tm-pings", campaigns: ["tm-pinged"], counts: "pings", max: 1, per: "day", reason: "Ping cap reached" },
  ],
});

let server: ApiTestServer;
let receiver: MockReceiver;
let secret: string;

beforeAll(async () => {
  server = await startApiTestServer({
    holdPeriodMs: REAL_HOLD_MS,
    testHoldPeriodMs: TEST_HOLD_MS,
    workerPollIntervalMs: 20,
    allowPrivateCallbacks: true,
    policyReloadMs: 100,
  });
  secret = (await server.store.read((t) => op(t.vendors.findByName(VENDOR.name))))!.signingSecret;
  receiver = startMockReceiver({ secret, checkSecret: await ensureChecksSecret(server.store) });
  await installPolicy(server.store, [server], server.auth, policy(receiver.url.origin));
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

const TEST = { "x-test-lead": "true" };
const send = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  post(`${server.url}${path}`, body, { authorization: server.auth, ...headers });
const testLead = (body: unknown, headers: Record<string, string> = {}) => send("/v1/postLead", body, { ...TEST, ...headers });
const realLead = (body: unknown, headers: Record<string, string> = {}) => send("/v1/postLead", body, headers);
const storedLead = async (leadId: string) =>
  (await server.rows("SELECT test, created_at, decide_after FROM leads WHERE id = $1", leadId))[0] as {
    test: unknown;
    created_at: number;
    decide_after: number;
  };
/** SQLite stores the flag as 0 or 1, PostgreSQL as a boolean. */
const isTest = async (leadId: string) => Boolean((await storedLead(leadId)).test);
const capUsed = async (name: string) => Number((await server.rows("SELECT coalesce(sum(used), 0) AS n FROM cap_usage WHERE cap_name = $1", name))[0]!.n);

// The first three tests each wait out a test lead's hold, so they run together (bun's test.concurrent
// runs consecutive ones at once): each has its own campaign and callback path. The others run alone.
let paths = 0;
const callbackPath = () => `/test-mode/${++paths}`;

test.concurrent("a test lead's whole life: 200 as for a real lead, stored as a test, decided after the short hold, its callback signed and saying test: true", async () => {
  const path = callbackPath();
  const answer = await testLead(validLead({ call_back_url: `${receiver.url.origin}${path}`, vendor_campaign_name: "tm-life" }));
  expect(answer.status).toBe(200);
  expect(answer.body).toEqual({ success_bit: true, message: expect.any(String), lead_id: expect.any(String) });
  expect(answer.body.message).toBe((await realLead(validLead())).body.message);
  expect(answer.headers.get("x-test-lead")).toBe("true");
  const leadId = answer.body.lead_id as string;
  const stored = await storedLead(leadId);
  expect([await isTest(leadId), stored.decide_after - stored.created_at]).toEqual([true, TEST_HOLD_MS]);

  const [received] = await receiver.waitFor(1, { path, timeoutMs: 10_000 });
  expect(received!.signature).toEqual({ valid: true });
  expect(() => new Webhook(secret).verify(received!.body, received!.headers)).not.toThrow();
  expect(received!.json).toMatchObject({ lead_id: leadId, success_bit: true, status: "accepted", test: true });
  expect((await get(`${server.url}/v1/leads/${leadId}`, { authorization: server.auth })).body).toMatchObject({ status: "accepted" });
});

test.concurrent("a test lead rejected by a final rule: its callback gives the rule's reason and test: true", async () => {
  const path = callbackPath();
  const body = validLead({ call_back_url: `${receiver.url.origin}${path}`, vendor_campaign_name: "tm-final", extra_data: { home_owner: false } });
  const answer = await testLead(body);
  expect(answer.status).toBe(200);
  const [received] = await receiver.waitFor(1, { path, timeoutMs: 10_000 });
  expect(received!.json).toMatchObject({
    lead_id: answer.body.lead_id,
    success_bit: false,
    status: "rejected",
    message: [{ error: "Not a home owner" }],
    test: true,
  });
});

test.concurrent("a test lead is asked by a final-stage check during its short hold, and a fail rejects it: the check's reason, test: true", async () => {
  const phone = uniquePhone();
  receiver.setCheckAnswer({ phone, outcome: "fail", reason: "On the do-not-call list" });
  const path = callbackPath();
  const answer = await testLead(validLead({ phone_number: phone, call_back_url: `${receiver.url.origin}${path}`, vendor_campaign_name: "tm-checked" }));
  expect(answer.status).toBe(200);
  const [received] = await receiver.waitFor(1, { path, timeoutMs: 10_000 });
  expect(received!.json).toMatchObject({ lead_id: answer.body.lead_id, status: "rejected", message: [{ error: "On the do-not-call list" }], test: true });
  expect(receiver.received("/check/tm-dnc").map((request) => (request.json as { lead_id: string }).lead_id)).toContain(answer.body.lead_id);
});

test("a test lead claims no number: a real lead with it right after is accepted; then a test lead with it is blocked, as a real one would be", async () => {
  const phone = uniquePhone();
  const first = await testLead(validLead({ phone_number: phone }));
  expect(first.status).toBe(200);
  const real = await realLead(validLead({ phone_number: phone }));
  expect(real.status).toBe(200);
  expect(real.body.lead_id).not.toBe(first.body.lead_id);
  const blocked = await testLead(validLead({ phone_number: phone }));
  expect([blocked.status, blocked.body]).toEqual([422, { success_bit: false, message: [{ error: "Phone number can not be sent to postLead at this time." }] }]);
  // Nor does a test lead re-posting the real lead's very body get the real lead back as a replay.
  expect((await testLead(validLead({ phone_number: phone }))).status).toBe(422);
});

test("a test lead takes no cap slot (cap of 1: a test lead, then a real lead → 200); with the cap full, a test lead gets the cap's 422", async () => {
  const test1 = await testLead(validLead({ vendor_campaign_name: "tm-capped" }));
  expect(test1.status).toBe(200);
  expect(await capUsed("tm-leads")).toBe(0);
  expect((await realLead(validLead({ vendor_campaign_name: "tm-capped" }))).status).toBe(200);
  expect(await capUsed("tm-leads")).toBe(1);
  const refused = await testLead(validLead({ vendor_campaign_name: "tm-capped" }));
  const real = await realLead(validLead({ vendor_campaign_name: "tm-capped" }));
  expect([refused.status, refused.body]).toEqual([422, { success_bit: false, message: [{ error: "Daily cap reached" }] }]);
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  expect([real.status, real.body]).toEqual([refused.status, refused.body]);
  expect(await capUsed("tm-leads")).toBe(1);
});

test("an intake rule or an intake check refuses a test lead with the same 422 as a real one", async () => {
  const body = validLead({ vendor_campaign_name: "tm-ruled", state: "TX" });
  const tested = await testLead(body);
  const real = await realLead(body);
  expect([tested.status, tested.body]).toEqual([422, { success_bit: false, message: [{ error: "State not served: TX" }] }]);
  expect([real.status, real.body]).toEqual([tested.status, tested.body]);
  // An intake check's fail too: the check is asked for the test lead.
  const phone = uniquePhone();
  receiver.setCheckAnswer({ phone, outcome: "fail", reason: "Known litigator" });
  const scrubbed = await testLead(validLead({ phone_number: phone, vendor_campaign_name: "tm-scrubbed" }));
  expect([scrubbed.status, scrubbed.body]).toEqual([422, { success_bit: false, message: [{ error: "Known litigator" }] }]);
  expect(receiver.received("/check/tm-scrub")).toHaveLength(1);
  // Invalid fields too.
  const invalid = validLead({ state: "XX" });
  expect((await testLead(invalid)).body).toEqual((await realLead(invalid)).body);
});

test("/v1/test/postLead and /v1/test/prePing are tests without the header; a test prePing takes no pings slot", async () => {
  const answer = await send("/v1/test/postLead", validLead());
  expect([answer.status, answer.headers.get("x-test-lead")]).toEqual([200, "true"]);
  expect(await isTest(answer.body.lead_id)).toBe(true);
  // X-Test-Lead with another value is a real lead.
  const real = await send("/v1/postLead", validLead(), { "x-test-lead": "false" });
  expect([real.status, await isTest(real.body.lead_id)]).toEqual([200, false]);

  const ping = (path: string, headers: Record<string, string> = {}) => send(path, { phone_number: uniquePhone(), vendor_campaign_name: "tm-pinged" }, headers);
  expect((await ping("/v1/test/prePing")).status).toBe(200);
  expect((await ping("/v1/prePing", TEST)).status).toBe(200);
  expect(await capUsed("tm-pings")).toBe(0);
  expect((await ping("/v1/prePing")).status).toBe(200);
  expect(await capUsed("tm-pings")).toBe(1);
  const full = await ping("/v1/test/prePing");
  expect([full.status, full.body]).toEqual([422, { can_post_phone_bit: false, message: [{ error: "Ping cap reached" }] }]);
  expect((await send("/v1/test/prePing", { phone_number: "555" })).body.can_post_phone_bit).toBe(false);
});

test("a test lead's Idempotency-Key replays its first answer; the same key on a real post is another request (422)", async () => {
  const key = { "idempotency-key": `tm-${crypto.randomUUID()}` };
  const body = validLead();
  const first = await testLead(body, key);
  const again = await testLead(body, key);
  expect([first.status, again.status, again.body.lead_id, again.headers.get("idempotent-replayed")]).toEqual([200, 200, first.body.lead_id, "true"]);
  expect((await server.rows("SELECT id FROM leads WHERE phone_e164 = (SELECT phone_e164 FROM leads WHERE id = $1)", first.body.lead_id)).length).toBe(1);
  const real = await realLead(body, key);
  expect([real.status, real.body.message]).toEqual([422, [{ error: "Idempotency-Key was already used with a different request body" }]]);
  // At once, too: one lead for one key, whichever request stores it (no phone claim orders them).
  const together = { "idempotency-key": `tm-${crypto.randomUUID()}` };
  const other = validLead();
  const answers = await Promise.all(Array.from({ length: 6 }, () => testLead(other, together)));
  expect(new Set(answers.map((answer) => `${answer.status} ${answer.body.lead_id}`)).size).toBe(1);
  expect((await server.rows("SELECT id FROM leads WHERE id = $1", answers[0]!.body.lead_id)).length).toBe(1);
  expect((await server.rows("SELECT id FROM leads WHERE phone_e164 = (SELECT phone_e164 FROM leads WHERE id = $1)", answers[0]!.body.lead_id)).length).toBe(1);
});

test("metrics count test postLeads apart: the real intake series does not move", async () => {
  const scrape = async () => await (await fetch(`${server.url}/metrics`)).text();
  const value = (text: string, series: string) => Number(text.match(new RegExp(`^${series.replace(/[{}]/g, "\\$&")} (\\d+)$`, "m"))?.[1] ?? 0);
  const real = `lead_ingress_intake_total{vendor="${VENDOR.name}",outcome="accepted"}`;
  const tested = `lead_ingress_test_intake_total{vendor="${VENDOR.name}",outcome="accepted"}`;
  const before = await scrape();
  expect((await testLead(validLead())).status).toBe(200);
  expect((await send("/v1/test/postLead", validLead())).status).toBe(200);
  const after = await scrape();
  expect([value(after, real) - value(before, real), value(after, tested) - value(before, tested)]).toEqual([0, 2]);
  expect(after).toMatch(/^lead_ingress_http_requests_total\{route="\/v1\/test\/postLead",status="200"\} \d+$/m);
});

test("lead-ingress leads list marks the test lead and --test / --real select by kind, on this database", async () => {
  const campaign = `tm-cli-${crypto.randomUUID()}`;
  const real = (await realLead(validLead({ vendor_campaign_name: campaign }))).body.lead_id as string;
  const tested = (await testLead(validLead({ vendor_campaign_name: campaign }))).body.lead_id as string;
  const leads = (...flags: string[]) => cli(server.config.databasePath, "leads", "list", "--campaign", campaign, ...flags);
  const table = (await leads()).out.trimEnd().split("\n");
  expect(table[0]).toMatch(/^CREATED\s+ID\s+STATUS\s+TEST\s+VENDOR/);
  expect(
    table.slice(1).map((line) => [line.includes(tested) || line.includes(real), /\s(pending|accepted)\s+test\s/.test(line) === line.includes(tested)]),
  ).toEqual([
    [true, true],
    [true, true],
  ]);
  const ids = async (flag: string) => (JSON.parse((await leads(flag, "--json")).out) as { id: string; test: boolean }[]).map((lead) => [lead.id, lead.test]);
  expect(await ids("--test")).toEqual([[tested, true]]);
  expect(await ids("--real")).toEqual([[real, false]]);
});
