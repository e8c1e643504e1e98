// Final-stage external checks (docs/contract.md §11; docs/checks.md "At the final stage"): the real
// server with its worker and the mock receiver playing the check services and receiving the
// callbacks, on 127.0.0.1 ephemeral ports; on SQLite, or on PostgreSQL with
// LEAD_INGRESS_TEST_BACKEND=postgres. During the hold each final-stage check in the lead's scope is
// asked (signed, with the lead's id, one webhook-id per lead and check on every retry), its answer
// stored with the lead; at the decision a fail rejects with its reason, an error through the hold is
// the check's on_error, and final rules read check.<name>.* of intake and final-stage checks.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ensureChecksSecret } from "../../src/checks/secret.ts";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { addOperator, signIn } from "../console/console-client.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { cli } from "../helpers/cli.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";

// Long enough for a service failing once to be asked again (0.5 s later) and a hanging one twice.
const HOLD_MS = 3_000;
// Each test waits out a hold, so they run concurrently (bun's test.concurrent) and wait together: each
// has its own phones and callback paths, and asserts only about those.
const TIMEOUT_MS = 300;

let server: ApiTestServer;
let receiver: MockReceiver;
let paths = 0;

function policy(origin: string) {
  const check = (name: string, campaigns: string[], extra: Record<string, unknown> = {}) => ({
    name,
    stage: "final",
    url: `${origin}/check/${name}`,
    send: ["phone_number", "state"],
    timeout_ms: TIMEOUT_MS,
    campaigns,
    ...extra,
  });
  const finalRule = (name: string, field: string, value: string, reason: string) => ({
    name,
    stage: "final",
    campaigns: ["facts"],
    require: { field, op: "not_equals", value },
    reason,
  });
  return {
    rules: [
      { name: "probe", campaigns: ["probe"], require: { field: "campaign", op: "equals", value: "never" }, reason: "probe" },
      finalRule("no-landline", "check.linetype.reason", "landline", "Landline: {check.linetype.reason}"),
      finalRule("no-prepaid", "check.carrier.reason", "prepaid", "Prepaid: {check.carrier.outcome}"),
    ],
    checks: [
      check("dnc", ["final"], { on_error: "reject" }),
      check("down-accept", ["down"], { on_error: "accept" }),
      check("down-reject", ["down"], { on_error: "reject" }),
      { ...check("linetype", ["facts"]), stage: "intake" },
      check("carrier", ["facts"]),
      // Campaigns JavaScript folds beyond ASCII, as the policy compares them (SQLite's lower() does not).
      check("scrub", ["été-solar", "kelvin"], { on_error: "reject" }),
    ],
  };
}

beforeAll(async () => {
  server = await startApiTestServer({ holdPeriodMs: HOLD_MS, workerPollIntervalMs: 20, allowPrivateCallbacks: true, consolePort: 0, policyReloadMs: 100 });
  const secret = await ensureChecksSecret(server.store);
  receiver = startMockReceiver({ port: 0, checkSecret: secret });
  expect((await importPolicy(server.store, JSON.stringify(policy(receiver.url.origin)), "cli:test")).kind).toBe("imported");
  const started = Date.now();
  while ((await prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: "probe" })).status !== 422) {
    if (Date.now() - started > 5_000) throw new Error("the service did not apply the imported policy within 5 s");
    await Bun.sleep(25);
  }
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
});

const E164 = (phone: string) => `+1${phone.replace(/\D/g, "")}`;
/** The requests of `check` the mock received about a phone. */
const requestsFor = (check: string, phone: string) =>
  receiver.received(`/check/${check}`).filter((request) => (request.json as { fields: { phone_number: string } }).fields.phone_number === E164(phone));

/** Posts a lead of `campaign` with a callback of its own; answers its id and the callback's path. */
async function submit(phone: string, campaign: string): Promise<{ leadId: string; path: string }> {
  const path = `/final-checks/${++paths}`;
  const answer = await postLead(
    server,
    server.auth,
    validLead({ phone_number: phone, vendor_campaign_name: campaign, call_back_url: `${receiver.url.origin}${path}` }),
  );
  expect(answer.status).toBe(200);
  return { leadId: answer.body.lead_id as string, path };
}

const callbackFor = async (path: string) => (await receiver.waitFor(1, { path, timeoutMs: 15_000 }))[0]!.json as Record<string, unknown>;
const rejectedWith = (...reasons: string[]) => ({ status: "rejected", success_bit: false, message: reasons.map((error) => ({ error })) });
const findingsOf = async (leadId: string) => await server.store.read((t) => op(t.findings.of([leadId], "check")));

/** Waits until the mock has received `count` requests of `check` about `phone`. */
async function asked(check: string, phone: string, count: number): Promise<void> {
  const started = Date.now();
  while (requestsFor(check, phone).length < count) {
    if (Date.now() - started > 10_000) throw new Error(`${check} was not asked ${count} times about ${phone}`);
    await Bun.sleep(10);
  }
}

test.concurrent("a final check's fail rejects the lead with its reason; the request is signed, carries the lead id; the answer is stored and shown", async () => {
  const phone = uniquePhone();
  receiver.setCheckAnswer({ phone, outcome: "fail", reason: "On the do-not-call list" });
  const { leadId, path } = await submit(phone, "final");
  expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, ...rejectedWith("On the do-not-call list") });
  const requests = requestsFor("dnc", phone);
  expect(requests).toHaveLength(1);
  expect(requests[0]!.json).toEqual({
    check: "dnc",
    vendor: "vendor-a",
    campaign: "final",
    lead_id: leadId,
    fields: { phone_number: E164(phone), state: expect.any(String) },
  });
  expect(requests[0]!.signature).toEqual({ valid: true });
  expect(requests[0]!.headers["webhook-id"]).toBe(`chk_${leadId.replaceAll("-", "")}_${Buffer.from("dnc").toString("base64url")}`);
  expect(await findingsOf(leadId)).toEqual([
    expect.objectContaining({ kind: "check", name: "dnc", outcome: "fail", reason: "On the do-not-call list", attempts: 1 }),
  ]);

  const shown = await cli(server.config.databasePath, "leads", "show", leadId);
  expect(shown.code).toBe(0);
  expect(shown.out).toMatch(/Checks\n\s+dnc\s+final\s+fail\s+On the do-not-call list/);
  const json = JSON.parse((await cli(server.config.databasePath, "leads", "show", leadId, "--json")).out);
  expect(json.checks).toEqual([expect.objectContaining({ check: "dnc", stage: "final", outcome: "fail", reason: "On the do-not-call list", attempts: 1 })]);
  await addOperator(server.store);
  const page = await (await signIn(server.consoleUrl!)).get(`/leads/${leadId}`);
  expect(page.text).toContain("<h2>Checks</h2>");
  expect(page.text).toContain("On the do-not-call list");

  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  expect(metrics).toMatch(/lead_ingress_check_answers_total\{check="dnc",outcome="fail"\} [1-9]/);
  expect(metrics).toMatch(/lead_ingress_check_duration_seconds_count\{check="dnc"\} [1-9]/);
});

test.concurrent("a service down during the hold, then back: asked again with the same webhook-id, and the lead decided by its answer", async () => {
  const phone = uniquePhone();
  receiver.setCheckAnswer({ phone, status: 500 });
  const { leadId, path } = await submit(phone, "final");
  await asked("dnc", phone, 1);
  receiver.setCheckAnswer({ phone, outcome: "pass", reason: "clean" });
  expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, status: "accepted" });
  const requests = requestsFor("dnc", phone);
  expect(requests.length).toBeGreaterThanOrEqual(2);
  expect(new Set(requests.map((request) => request.headers["webhook-id"])).size).toBe(1);
  expect(requests.every((request) => request.signature?.valid)).toBe(true);
  expect(await findingsOf(leadId)).toEqual([expect.objectContaining({ name: "dnc", outcome: "pass", reason: "clean", attempts: requests.length })]);
});

test.concurrent("services down past the decision: each check's on_error decides (a hang and a 500; accept lets it through, reject refuses)", async () => {
  const both = uniquePhone();
  receiver.setCheckAnswer({ phone: both, check: "down-accept", hang: true });
  receiver.setCheckAnswer({ phone: both, check: "down-reject", status: 500 });
  const onlyAccepting = uniquePhone();
  receiver.setCheckAnswer({ phone: onlyAccepting, check: "down-accept", status: 503 });
  const [first, second] = await Promise.all([submit(both, "down"), submit(onlyAccepting, "down")]);
  expect(await callbackFor(first.path)).toMatchObject({ lead_id: first.leadId, ...rejectedWith("Check unavailable: down-reject") });
  expect(await callbackFor(second.path)).toMatchObject({ lead_id: second.leadId, status: "accepted" });
  // Retried through the hold, not asked once and given up.
  expect(requestsFor("down-reject", both).length).toBeGreaterThanOrEqual(2);
  expect(requestsFor("down-accept", onlyAccepting).length).toBeGreaterThanOrEqual(2);
  expect(await findingsOf(first.leadId)).toEqual(
    expect.arrayContaining([
      expect.objectContaining({ name: "down-accept", outcome: "error" }),
      expect.objectContaining({ name: "down-reject", outcome: "error" }),
    ]),
  );
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  expect(metrics).toMatch(/lead_ingress_check_answers_total\{check="down-reject",outcome="error"\} [1-9]/);
});

test.concurrent("final rules read check.<name>.reason of an intake check and of a final-stage check", async () => {
  const landline = uniquePhone();
  receiver.setCheckAnswer({ phone: landline, check: "linetype", outcome: "pass", reason: "landline" });
  const prepaid = uniquePhone();
  receiver.setCheckAnswer({ phone: prepaid, check: "linetype", outcome: "pass", reason: "mobile" });
  receiver.setCheckAnswer({ phone: prepaid, check: "carrier", outcome: "pass", reason: "prepaid" });
  const clean = uniquePhone();
  receiver.setCheckAnswer({ phone: clean, check: "linetype", outcome: "pass", reason: "mobile" });
  const [a, b, c] = await Promise.all([submit(landline, "facts"), submit(prepaid, "facts"), submit(clean, "facts")]);
  expect(await callbackFor(a.path)).toMatchObject({ lead_id: a.leadId, ...rejectedWith("Landline: landline") });
  expect(await callbackFor(b.path)).toMatchObject({ lead_id: b.leadId, ...rejectedWith("Prepaid: pass") });
  expect(await callbackFor(c.path)).toMatchObject({ lead_id: c.leadId, status: "accepted" });
  // The intake check was asked at intake (no lead id yet), the final one during the hold.
  expect(requestsFor("linetype", landline)[0]!.json).not.toHaveProperty("lead_id");
  expect(requestsFor("carrier", landline)[0]!.json).toMatchObject({ lead_id: a.leadId });
  const json = JSON.parse((await cli(server.config.databasePath, "leads", "show", b.leadId, "--json")).out);
  expect(json.checks).toEqual([
    { check: "linetype", stage: "intake", outcome: "pass", reason: "mobile" },
    expect.objectContaining({ check: "carrier", stage: "final", outcome: "pass", reason: "prepaid" }),
  ]);
});

test("a final check scoped by campaigns beyond ASCII asks the leads the policy holds in scope (ÉTÉ-Solar, the Kelvin sign), decided by its answers; another campaign is not asked", async () => {
  const accented = uniquePhone();
  receiver.setCheckAnswer({ phone: accented, check: "scrub", outcome: "fail", reason: "On the scrub list" });
  const kelvin = uniquePhone();
  receiver.setCheckAnswer({ phone: kelvin, check: "scrub", outcome: "pass", reason: "clean" });
  const other = uniquePhone();
  const [a, k, o] = await Promise.all([submit(accented, "ÉTÉ-Solar"), submit(kelvin, "\u212Aelvin"), submit(other, "ete-solar")]);
  expect(await callbackFor(a.path)).toMatchObject({ lead_id: a.leadId, ...rejectedWith("On the scrub list") });
  expect(await callbackFor(k.path)).toMatchObject({ lead_id: k.leadId, status: "accepted" });
  expect(await callbackFor(o.path)).toMatchObject({ lead_id: o.leadId, status: "accepted" });
  expect(requestsFor("scrub", accented)).toHaveLength(1);
  expect(requestsFor("scrub", kelvin)).toHaveLength(1);
  expect(requestsFor("scrub", other)).toEqual([]);
  expect(await findingsOf(k.leadId)).toEqual([expect.objectContaining({ name: "scrub", outcome: "pass", reason: "clean", attempts: 1 })]);
});
