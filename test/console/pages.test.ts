// The Leads page and one lead's actions, against the real server and worker: search by phone in
// any spelling and by id prefix; send a pending callback now; replay a dead one; each action audited.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { postedLead } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { addOperator, OPERATOR, signIn, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let receiver: Bun.Server<unknown>;
/** How the receiver answers the next callbacks: 500 until told otherwise. */
let receiverStatus = 500;
let operator: SignedIn;

beforeAll(async () => {
  receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("answer", { status: receiverStatus }) });
  // After a failed attempt the next one is an hour away (or, on the last, the callback is dead).
  server = await startApiTestServer({
    consolePort: 0,
    allowPrivateCallbacks: true,
    holdPeriodMs: 0,
    workerPollIntervalMs: 50,
    callbackRetrySchedule: [3_600_000],
  });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
});
afterAll(async () => {
  await server.stop();
  await receiver.stop(true);
});

/** Leads this file posted: all accepted (no hold, no suppression). */
let posted = 0;

/** A lead posted with its callback to the receiver, counted in `posted`: its id. */
function leadToReceiver(overrides: Record<string, unknown> = {}): Promise<string> {
  posted++;
  return postedLead(server, server.auth, validLead({ call_back_url: `http://127.0.0.1:${receiver.port}/cb`, ...overrides }));
}
const callbackOf = async (leadId: string) => (await server.store.read((t) => op(t.callbacks.detailOf(leadId))))!;
const auditOf = async (leadId: string) =>
  (await server.store.read((t) => op(t.audit.list(100)))).filter((entry) => entry.subject === leadId).map((entry) => [entry.actor, entry.action]);

test("Leads finds a lead by its phone in another spelling and by its id's first digits; a bad phone is a problem shown", async () => {
  const leadId = await leadToReceiver({ phone_number: "(415) 555-0175" });
  for (const query of ["phone=%2B1+415.555.0175", "phone=4155550175", `lead=${leadId.slice(0, 13).toUpperCase()}`]) {
    const page = await operator.get(`/leads?${query}`);
    expect([query, page.status, page.text.includes(`href="/leads/${leadId}"`)]).toEqual([query, 200, true]);
  }
  const other = await operator.get("/leads?phone=%2B1+212.555.0199");
  expect(other.text).not.toContain(leadId);
  const bad = await operator.get("/leads?phone=555");
  expect([bad.status, bad.text]).toEqual([200, expect.stringContaining("Not a US phone number: 555")]);
});

test("Leads marks a test lead (X-Test-Lead) and filters by kind: real and test, real only, test only", async () => {
  const campaign = `console-test-mode-${crypto.randomUUID()}`;
  const real = await postedLead(server, server.auth, validLead({ vendor_campaign_name: campaign }));
  posted++; // The Overview's count below: the real lead only, the test lead is left out.
  const response = await fetch(`${server.url}/v1/postLead`, {
    method: "POST",
    headers: { authorization: server.auth, "x-test-lead": "true" },
    body: JSON.stringify(validLead({ vendor_campaign_name: campaign })),
  });
  const tested = ((await response.json()) as { lead_id: string }).lead_id;
  const shown = async (traffic: string) => {
    const page = await operator.get(`/leads?campaign=${campaign}&traffic=${traffic}`);
    expect(page.status).toBe(200);
    return [page.text.includes(`href="/leads/${real}"`), page.text.includes(`href="/leads/${tested}"`)];
  };
  expect(await shown("")).toEqual([true, true]);
  expect(await shown("real")).toEqual([true, false]);
  expect(await shown("test")).toEqual([false, true]);
  const row = (await operator.get(`/leads?campaign=${campaign}`)).text.split("<tr>").find((part) => part.includes(tested))!;
  expect(row).toMatch(/pending <strong class="muted"[^>]*>test<\/strong>/);
  expect((await operator.get(`/leads?campaign=${campaign}`)).text.split("<tr>").find((part) => part.includes(real))).not.toContain(">test<");
  expect((await operator.get("/leads?traffic=fake")).text).toContain("Unknown kind of lead (real or test): fake");
  expect((await operator.get(`/leads/${tested}`)).text).toContain("Received from vendor-a as a test (X-Test-Lead)");
  expect((await operator.get(`/leads/${real}`)).text).not.toContain("as a test");
  const csv = (await operator.get(`/leads.csv?campaign=${campaign}`)).text.split("\r\n");
  expect([csv[1]!.endsWith(",true"), csv[2]!.endsWith(",false")]).toEqual([true, true]);
});

test("Export CSV gives every lead the search selects, a formula-like value made text", async () => {
  const campaign = '=HYPERLINK("http://attacker.example","x")';
  const leadId = await leadToReceiver({ phone_number: "(702) 555-0163", vendor_campaign_name: campaign });
  const csv = await operator.get("/leads.csv?phone=7025550163");
  expect([csv.status, csv.headers.get("content-type"), csv.headers.get("content-disposition")]).toEqual([
    200,
    "text/csv; charset=utf-8",
    'attachment; filename="leads.csv"',
  ]);
  const lines = csv.text.split("\r\n");
  expect(lines[0]).toBe("created_at,id,status,rejection_reason,vendor,phone_e164,vendor_campaign_name,decided_at,callback_status,test");
  expect(lines[1]).toMatch(new RegExp(`^\\d{4}-[^,]+Z,${leadId},\\w+,,vendor-a,'\\+17025550163,"'=HYPERLINK\\(""http://attacker.example"",""x""\\)",`));
  expect(lines.slice(2)).toEqual([""]);
  expect((await operator.get("/leads.csv?phone=555")).status).toBe(400);
});

test("Send callback now: a pending callback waiting an hour for its next attempt is sent at once", async () => {
  receiverStatus = 500;
  const leadId = await leadToReceiver();
  await waitUntil(async () => (await callbackOf(leadId)).attempts.length === 1, 10_000);
  expect((await callbackOf(leadId)).callback.status).toBe("pending");
  receiverStatus = 200;
  const page = await operator.get(`/leads/${leadId}`);
  expect(page.text).toContain("Callback attempt 1: HTTP 500");
  expect(page.text).toContain(`action="/leads/${leadId}/retry"`);

  const sent = await operator.post(`/leads/${leadId}/retry`, { csrf: operator.csrf });
  expect([sent.status, sent.headers.get("location")]).toEqual([303, `/leads/${leadId}`]);
  expect((await operator.follow(sent)).text).toContain("The callback is due now: the worker sends it at its next poll.");
  await waitUntil(async () => (await callbackOf(leadId)).callback.status === "delivered", 10_000);
  expect(await auditOf(leadId)).toEqual([[`operator:${OPERATOR.name}`, "callback.retry"]]);
  // Delivered now: nothing pending to send, so the action is refused with the reason.
  const again = await operator.post(`/leads/${leadId}/retry`, { csrf: operator.csrf });
  expect([again.status, again.text]).toEqual([409, expect.stringContaining("The callback is delivered: only a pending callback can be sent now.")]);
});

test("Replay callback: a dead callback is queued again and delivered, with the same webhook-id", async () => {
  receiverStatus = 500;
  const leadId = await leadToReceiver();
  // Two attempts: the first, and after a retry sent now, the last; then it is dead.
  await waitUntil(async () => (await callbackOf(leadId)).attempts.length === 1, 10_000);
  await operator.post(`/leads/${leadId}/retry`, { csrf: operator.csrf });
  await waitUntil(async () => (await callbackOf(leadId)).callback.status === "dead", 10_000);
  const webhookId = (await callbackOf(leadId)).callback.id;

  receiverStatus = 200;
  const replayed = await operator.post(`/leads/${leadId}/replay`, { csrf: operator.csrf });
  expect([replayed.status, replayed.headers.get("location")]).toEqual([303, `/leads/${leadId}`]);
  expect((await operator.follow(replayed)).text).toContain("The callback is queued again, with the same webhook-id.");
  await waitUntil(async () => (await callbackOf(leadId)).callback.status === "delivered", 10_000);
  expect((await callbackOf(leadId)).callback.id).toBe(webhookId);
  expect((await operator.get(`/leads/${leadId}`)).text).toContain("Callback attempt 3: HTTP 200");
  expect(await auditOf(leadId)).toEqual([
    [`operator:${OPERATOR.name}`, "callback.replay"],
    [`operator:${OPERATOR.name}`, "callback.retry"],
  ]);
});

test("Overview counts the last hour's leads by outcome and by vendor (flushed every few seconds), and the callback queue", async () => {
  const accepted = `<td data-cell="total:accepted">${posted}</td>`;
  await waitUntil(async () => (await operator.get("/overview")).text.includes(accepted), 15_000);
  const page = await operator.get("/overview");
  expect(page.text).toMatch(new RegExp(`<tr><th>vendor-a</th><td data-cell="vendor:[^"]+">${posted}</td></tr>`));
  expect(page.text).toContain('<tr><th>Dead</th><td data-cell="queue:dead">0</td></tr>');
});
