// A final-stage check whose service hangs holds back no other final-stage check (docs/contract.md
// §11: a slow or dead service must not slow other checks; docs/checks.md "At the final stage"): the
// real server with its worker, the mock receiver playing both services and receiving the callbacks,
// on 127.0.0.1 ephemeral ports; on SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
// While "stalled" hangs (its timeout longer than the hold), a lead posted meanwhile is still asked
// by "quick" and decided by its answer, not by quick's on_error.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ensureChecksSecret } from "../../src/checks/secret.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const HOLD_MS = 3_000;

let server: ApiTestServer;
let receiver: MockReceiver;
let paths = 0;

function policy(origin: string) {
  const check = (name: string, extra: Record<string, unknown>) => ({
    name,
    stage: "final",
    url: `${origin}/check/${name}`,
    send: ["phone_number"],
    campaigns: ["stall"],
    ...extra,
  });
  return {
    rules: [{ name: "probe", campaigns: ["probe"], require: { field: "campaign", op: "equals", value: "never" }, reason: "probe" }],
    // "stalled" would hold a pass for 10 s, far beyond a lead's hold.
    checks: [check("stalled", { timeout_ms: 10_000, on_error: "accept" }), check("quick", { timeout_ms: 1_000, on_error: "reject" })],
  };
}

beforeAll(async () => {
  server = await startApiTestServer({ holdPeriodMs: HOLD_MS, workerPollIntervalMs: 20, allowPrivateCallbacks: true });
  receiver = startMockReceiver({ port: 0, checkSecret: await ensureChecksSecret(server.store) });
  expect((await importPolicy(server.store, JSON.stringify(policy(receiver.url.origin)), "cli:test")).kind).toBe("imported");
  await waitUntil(async () => (await prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: "probe" })).status === 422, 5_000, 25);
});
// The worker's stop waits (within the shutdown timeout) for a hanging request to time out, as a pass did.
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
}, 20_000);

const E164 = (phone: string) => `+1${phone.replace(/\D/g, "")}`;
const requestsFor = (check: string, phone: string) =>
  receiver.received(`/check/${check}`).filter((request) => (request.json as { fields: { phone_number: string } }).fields.phone_number === E164(phone));

/** Posts a lead in the checks' scope whose "stalled" request hangs and whose "quick" answer fails it. */
async function submit(): Promise<{ phone: string; leadId: string; path: string }> {
  const phone = uniquePhone();
  receiver.setCheckAnswer({ phone, check: "stalled", hang: true });
  receiver.setCheckAnswer({ phone, check: "quick", outcome: "fail", reason: `Listed by quick: ${phone}` });
  const path = `/stall/${++paths}`;
  const answer = await postLead(
    server,
    server.auth,
    validLead({ phone_number: phone, vendor_campaign_name: "stall", call_back_url: `${receiver.url.origin}${path}` }),
  );
  expect(answer.status).toBe(200);
  return { phone, leadId: answer.body.lead_id as string, path };
}

test("while one check's service hangs, a lead posted meanwhile is asked by the other check and decided by its answer", async () => {
  const first = await submit();
  await waitUntil(() => requestsFor("stalled", first.phone).length === 1, 10_000);
  // "stalled" hangs now; this lead's whole hold passes within its request's timeout.
  const second = await submit();
  for (const { phone, leadId, path } of [first, second]) {
    const [callback] = await receiver.waitFor(1, { path, timeoutMs: 15_000 });
    expect(callback!.json).toMatchObject({ lead_id: leadId, status: "rejected", message: [{ error: `Listed by quick: ${phone}` }] });
    expect(requestsFor("quick", phone)).toHaveLength(1);
  }
  // The second lead was decided while the first's "stalled" request still hung.
  expect(requestsFor("stalled", second.phone)).toHaveLength(1);
}, 30_000);
