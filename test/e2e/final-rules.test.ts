// The policy's final rules when a lead is decided (docs/contract.md §7, §10): after the hold, a
// lead failing final rules in its scope is rejected, its callback's message and its lookup listing
// each failing rule's reason in the document's order; an operator's accept wins. The real server
// with its worker and the mock receiver on 127.0.0.1 ephemeral ports; on SQLite, or on PostgreSQL
// with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { recordOperatorDecision } from "../../src/final-results/operator.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { get, post, startApiTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";

// Long enough for an operator's decision to land during the hold; short enough for the suite.
const HOLD_MS = 1_000;
// Each test waits out a hold, so they run concurrently (bun's test.concurrent) and wait together: each
// has its own lead and callback path, and asserts only about those.

const POLICY = {
  rules: [
    // Decides nothing here: prePing judges it, so the test knows when the service applies the policy.
    { name: "probe", campaigns: ["probe"], require: { field: "campaign", op: "equals", value: "never" }, reason: "probe" },
    {
      name: "home-owner",
      stage: "final",
      vendors: [VENDOR.name],
      require: { field: "extra_data.home_owner", op: "equals", value: true },
      reason: "Not a home owner: {extra_data.home_owner}",
    },
    {
      name: "income",
      stage: "final",
      campaigns: ["solar-q4"],
      require: { not: { field: "extra_data.income", op: "less_than", value: 30000 } },
      reason: "Income too low: {extra_data.income}",
    },
    // Would reject every lead of this test's vendor, were it applied to it.
    { name: "other-vendor", stage: "final", vendors: ["vendor-b"], require: { field: "state", op: "equals", value: "ZZ" } },
  ],
};

let server: ApiTestServer;
let receiver: MockReceiver;

beforeAll(async () => {
  server = await startApiTestServer({ holdPeriodMs: HOLD_MS, workerPollIntervalMs: 20, allowPrivateCallbacks: true, policyReloadMs: 100 });
  const secret = (await server.store.read((t) => op(t.vendors.findByName(VENDOR.name))))!.signingSecret;
  receiver = startMockReceiver({ secret });
  const outcome = await importPolicy(server.store, JSON.stringify(POLICY), "cli:test");
  expect(outcome.kind).toBe("imported");
  const started = Date.now();
  while ((await prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: "probe" })).status !== 422) {
    if (Date.now() - started > 5_000) throw new Error("the service did not apply the imported policy within 5 s");
    await Bun.sleep(25);
  }
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

let paths = 0;

/** Posts a lead with `extra_data` and a callback to a path of its own; answers its id and that path. */
async function submit(extraData: Record<string, unknown>, campaign = "solar-q4"): Promise<{ leadId: string; path: string }> {
  const path = `/final/${++paths}`;
  const body = validLead({ extra_data: extraData, vendor_campaign_name: campaign, call_back_url: `${receiver.url.origin}${path}` });
  const answer = await post(`${server.url}/v1/postLead`, body, { authorization: server.auth });
  expect(answer.status).toBe(200);
  return { leadId: answer.body.lead_id, path };
}

const callbackFor = async (path: string) => (await receiver.waitFor(1, { path, timeoutMs: 10_000 }))[0]!.json as Record<string, unknown>;
const lookup = (leadId: string) => get(`${server.url}/v1/leads/${leadId}`, { authorization: server.auth });
const errors = (...texts: string[]) => texts.map((error) => ({ error }));

test.concurrent("a lead failing a final rule on extra_data is rejected: the callback and the lookup give its templated reason", async () => {
  const { leadId, path } = await submit({ home_owner: false, income: 50000 });
  expect((await lookup(leadId)).body.status).toBe("pending");
  expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, success_bit: false, status: "rejected", message: errors("Not a home owner: false") });
  expect(await lookup(leadId)).toMatchObject({ status: 200, body: { success_bit: false, status: "rejected", message: errors("Not a home owner: false") } });
});

test.concurrent("a lead failing two final rules: both reasons, in the document's order, in the callback and the lookup", async () => {
  const { leadId, path } = await submit({ income: "1000", home_owner: "no" });
  const reasons = errors("Not a home owner: no", "Income too low: 1000");
  expect((await callbackFor(path)).message).toEqual(reasons);
  expect((await lookup(leadId)).body.message).toEqual(reasons);
});

test.concurrent("a lead passing every final rule in its scope is accepted (a rule scoped to another vendor does not apply)", async () => {
  const { leadId, path } = await submit({ home_owner: true, income: 50000 });
  expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, success_bit: true, status: "accepted", message: "Lead accepted." });
  expect((await lookup(leadId)).body).toMatchObject({ success_bit: true, status: "accepted" });
});

test.concurrent("a rule scoped to another campaign does not apply", async () => {
  const { path } = await submit({ home_owner: true, income: 10 }, "spring");
  expect(await callbackFor(path)).toMatchObject({ status: "accepted" });
});

test.concurrent("an operator's accept during the hold wins over failing final rules", async () => {
  const { leadId, path } = await submit({ home_owner: false, income: 10 });
  await recordOperatorDecision(server.store, leadId, "accept", null, "test");
  expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, status: "accepted" });
});
