// Intake's external checks (docs/contract.md §2, §10, §11; docs/checks.md): the real server and
// the mock receiver playing the check services, on 127.0.0.1 ephemeral ports; on SQLite, or on
// PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres. A check's fail answers 422 with its reason
// (in the refusal log and the metrics), an error is decided by on_error, answers are cached per
// phone, a hanging service costs a lead no more than the timeout, and no check is called for a
// lead the steps before it refuse (a blocked number, an intake rule) nor for an idempotent replay.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { ensureChecksSecret } from "../../src/checks/secret.ts";
import { PHONE_BLOCKED } from "../../src/contract/texts.ts";
import { op } from "../../src/db/script.ts";
import { REQUEST_ID_HEADER } from "../../src/http/request-id.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import type { ListedRefusal } from "../../src/store/refusals/index.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { type Answer, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";

const TIMEOUT_MS = 300;
/** What a lead may wait beyond a check's timeout on this loaded machine: the write, the scheduling. */
const MARGIN_MS = 1_500;

let server: ApiTestServer;
let receiver: MockReceiver;
let secret: string;

/** The policy: checks scoped by campaign, so each test picks the ones it means. */
function policy(origin: string) {
  const check = (name: string, extra: Record<string, unknown>) => ({
    name,
    url: `${origin}/check/${name}`,
    send: ["phone_number", "state"],
    timeout_ms: TIMEOUT_MS,
    campaigns: [name],
    ...extra,
  });
  return {
    rules: [
      // Decides nothing here: prePing judges it, so the test knows when the service applies the policy.
      { name: "probe", campaigns: ["probe"], require: { field: "campaign", op: "equals", value: "never" }, reason: "probe" },
      { name: "no-refuse", campaigns: ["scrub"], require: { field: "extra_data.refuse", op: "blank" }, reason: "Refused by rule" },
    ],
    checks: [
      check("scrub", { cache: "1h", on_error: "accept" }),
      check("strict", { on_error: "reject" }),
      // Its own, since the hanging test opens its circuit; and one without cache nor timeouts.
      check("hanging", { on_error: "reject" }),
      check("plain", {}),
      { ...check("final-only", { stage: "final" }), campaigns: ["scrub"] },
    ],
  };
}

async function applied(target: ApiTestServer, document: unknown): Promise<void> {
  expect((await importPolicy(target.store, JSON.stringify(document), "cli:test")).kind).toBe("imported");
  const started = Date.now();
  while ((await prePing(target, target.auth, { phone_number: uniquePhone(), vendor_campaign_name: "probe" })).status !== 422) {
    if (Date.now() - started > 5_000) throw new Error("the service did not apply the imported policy within 5 s");
    await Bun.sleep(25);
  }
}

beforeAll(async () => {
  server = await startApiTestServer({ allowPrivateCallbacks: true });
  // The secret the service generated at its start, read back as the operator's command reads it.
  secret = await ensureChecksSecret(server.store);
  receiver = startMockReceiver({ secret: "whsec_dW51c2VkLXZlbmRvci1zZWNyZXQtMTIzNDU2Nzg=", checkSecret: secret });
  await applied(server, policy(receiver.url.origin));
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});
beforeEach(() => receiver.resetCheckAnswers());

const E164 = (phone: string) => `+1${phone.replace(/\D/g, "")}`;
/** The check requests the mock received for a phone. */
const requestsFor = (check: string, phone: string) =>
  receiver.received(`/check/${check}`).filter((request) => (request.json as { fields: { phone_number: string } }).fields.phone_number === E164(phone));
const errors = (...texts: string[]) => texts.map((error) => ({ error }));
const metricsText = async () => await (await fetch(`${server.url}/metrics`)).text();
/** The refusal log's row of an answer, by its request id (written a few ms after the answer). */
const refusalOf = async (answer: Answer): Promise<ListedRefusal | undefined> => {
  const requestId = answer.headers.get(REQUEST_ID_HEADER);
  const started = Date.now();
  for (;;) {
    const found = (await server.store.read((t) => op(t.refusals.search({ limit: 10_000 })))).find((row) => row.requestId === requestId);
    if (found || Date.now() - started > 3_000) return found;
    await Bun.sleep(20);
  }
};

test("a check's fail: 422 with its reason, in the refusal log (kind check) and the metrics; the request is signed with the stored secret", async () => {
  const phone = uniquePhone();
  receiver.setCheckAnswer({ phone, outcome: "fail", reason: "Known litigator" });
  const answer = await postLead(server, server.auth, validLead({ phone_number: phone, vendor_campaign_name: "scrub" }));
  expect(answer).toMatchObject({ status: 422, body: { success_bit: false, message: errors("Known litigator") } });
  const [request] = requestsFor("scrub", phone);
  expect(request?.json).toEqual({ check: "scrub", vendor: "vendor-a", campaign: "scrub", fields: { phone_number: E164(phone), state: expect.any(String) } });
  expect(request?.signature).toEqual({ valid: true });
  // The final-stage check in this scope is not the intake's to call.
  expect(requestsFor("final-only", phone)).toEqual([]);
  const refusal = await refusalOf(answer);
  expect(refusal).toMatchObject({ status: 422, reasons: JSON.stringify(["Known litigator"]), refusedBy: JSON.stringify([{ kind: "check", name: "scrub" }]) });
  const metrics = await metricsText();
  expect(metrics).toContain('lead_ingress_policy_refusals_total{kind="check",name="scrub"}');
  expect(metrics).toMatch(/lead_ingress_check_answers_total\{check="scrub",outcome="fail"\} [1-9]/);
  expect(metrics).toMatch(/lead_ingress_check_duration_seconds_count\{check="scrub"\} [1-9]/);
});

const storedAnswers = async (leadId: string) => JSON.parse((await server.rows("SELECT check_answers FROM leads WHERE id = $1", leadId))[0]!.check_answers);

test("a check's pass: the lead is accepted, stored with the check's answer (check.<name>.* for final rules)", async () => {
  const phone = uniquePhone();
  receiver.setCheckAnswer({ phone, outcome: "pass", reason: "Not on any list" });
  const answer = await postLead(server, server.auth, validLead({ phone_number: phone, vendor_campaign_name: "scrub" }));
  expect(answer).toMatchObject({ status: 200, body: { success_bit: true } });
  expect(requestsFor("scrub", phone)).toHaveLength(1);
  expect(await storedAnswers(answer.body.lead_id)).toEqual({ scrub: { outcome: "pass", reason: "Not on any list" } });
  const unchecked = await postLead(server, server.auth, validLead({ vendor_campaign_name: "spring" }));
  expect((await server.rows("SELECT check_answers FROM leads WHERE id = $1", unchecked.body.lead_id))[0]!.check_answers).toBeNull();
});

test("a check that times out: on_error accept takes the lead, on_error reject answers 422 Check unavailable, each within the timeout", async () => {
  const accepting = uniquePhone();
  const rejecting = uniquePhone();
  receiver.setCheckAnswer({ phone: accepting, hang: true });
  receiver.setCheckAnswer({ phone: rejecting, delayMs: 5_000 });
  const timed = async (phone: string, campaign: string) => {
    const started = performance.now();
    const answer = await postLead(server, server.auth, validLead({ phone_number: phone, vendor_campaign_name: campaign }));
    return { answer, ms: performance.now() - started };
  };
  const [accepted, rejected] = await Promise.all([timed(accepting, "scrub"), timed(rejecting, "strict")]);
  expect(accepted.answer).toMatchObject({ status: 200, body: { success_bit: true } });
  expect(await storedAnswers(accepted.answer.body.lead_id)).toEqual({ scrub: { outcome: "error", reason: "Check unavailable: scrub" } });
  expect(rejected.answer).toMatchObject({ status: 422, body: { message: errors("Check unavailable: strict") } });
  for (const { ms } of [accepted, rejected]) expect(ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
  const refusal = await refusalOf(rejected.answer);
  expect(refusal?.refusedBy).toBe(JSON.stringify([{ kind: "check", name: "strict" }]));
  expect(await metricsText()).toMatch(/lead_ingress_check_answers_total\{check="strict",outcome="error"\} [1-9]/);
});

test("the cache: a second lead with that phone is answered without a request", async () => {
  const phone = uniquePhone();
  receiver.setCheckAnswer({ phone, outcome: "fail", reason: "On the do-not-call list" });
  const lead = validLead({ phone_number: phone, vendor_campaign_name: "scrub" });
  expect((await postLead(server, server.auth, lead)).body.message).toEqual(errors("On the do-not-call list"));
  expect((await postLead(server, server.auth, { ...lead, first_name: "Other" })).body.message).toEqual(errors("On the do-not-call list"));
  expect(requestsFor("scrub", phone)).toHaveLength(1);
  expect(await metricsText()).toMatch(/lead_ingress_check_cache_hits_total\{check="scrub"\} [1-9]/);
});

test("a hanging check service: concurrent leads each answered within the timeout, not queued behind one another", async () => {
  const phones = Array.from({ length: 12 }, () => uniquePhone());
  for (const phone of phones) receiver.setCheckAnswer({ phone, hang: true });
  const answers = await Promise.all(
    phones.map(async (phone) => {
      const started = performance.now();
      const answer = await postLead(server, server.auth, validLead({ phone_number: phone, vendor_campaign_name: "hanging" }));
      return { status: answer.status, message: answer.body.message, ms: performance.now() - started };
    }),
  );
  for (const answer of answers) {
    expect(answer).toMatchObject({ status: 422, message: errors("Check unavailable: hanging") });
    expect(answer.ms).toBeLessThan(TIMEOUT_MS + MARGIN_MS);
  }
});

test("a blocked number gets §5's 422 and calls no check; nor does a lead an intake rule refuses", async () => {
  const phone = uniquePhone();
  expect((await postLead(server, server.auth, validLead({ phone_number: phone, vendor_campaign_name: "spring" }))).status).toBe(200);
  const blocked = await postLead(server, server.auth, validLead({ phone_number: phone, vendor_campaign_name: "scrub", first_name: "Again" }));
  expect(blocked).toMatchObject({ status: 422, body: { message: errors(PHONE_BLOCKED) } });
  const ruled = uniquePhone();
  const refused = await postLead(server, server.auth, validLead({ phone_number: ruled, vendor_campaign_name: "scrub", extra_data: { refuse: "yes" } }));
  expect(refused).toMatchObject({ status: 422, body: { message: errors("Refused by rule") } });
  expect([...requestsFor("scrub", phone), ...requestsFor("scrub", ruled)]).toEqual([]);
});

test("an idempotent replay answers the first lead again and calls no check again", async () => {
  const phone = uniquePhone();
  const lead = validLead({ phone_number: phone, vendor_campaign_name: "plain" });
  const first = await postLead(server, server.auth, lead, { "idempotency-key": `key-${E164(phone)}` });
  const again = await postLead(server, server.auth, lead, { "idempotency-key": `key-${E164(phone)}` });
  expect(first.status).toBe(200);
  expect(again).toMatchObject({ status: 200, body: { lead_id: first.body.lead_id } });
  expect(again.headers.get("idempotent-replayed")).toBe("true");
  expect(requestsFor("plain", phone)).toHaveLength(1);
});

test("a check at a private address is refused (no request) unless private callbacks are allowed", async () => {
  const strict = await startApiTestServer({ allowPrivateCallbacks: false });
  try {
    await applied(strict, policy(receiver.url.origin));
    const phone = uniquePhone();
    const answer = await postLead(strict, strict.auth, validLead({ phone_number: phone, vendor_campaign_name: "strict" }));
    expect(answer).toMatchObject({ status: 422, body: { message: errors("Check unavailable: strict") } });
    expect(requestsFor("strict", phone)).toEqual([]);
  } finally {
    await strict.stop();
  }
});

/**
 * A burst of leads on `campaign`: each of `numbers` posted by `copies` different customers at once,
 * a number already taken posted as many times, and one keyed lead sent `copies` times with its key.
 * Answers each group's answers (status, and a refusal's message; sorted) and how many leads the keyed group's name.
 */
async function burst(campaign: string, copies: number, numbers: string[], taken: string) {
  const send = (phone: string, i: number, headers?: Record<string, string>) =>
    postLead(server, server.auth, validLead({ phone_number: phone, vendor_campaign_name: campaign, customer_name: `Caller ${i}` }), headers);
  const keyedPhone = uniquePhone();
  const key = { "idempotency-key": `burst-${E164(keyedPhone)}` };
  const times = Array.from({ length: copies }, (_, i) => i);
  const [groups, takenAnswers, keyed] = await Promise.all([
    Promise.all(numbers.map((phone) => Promise.all(times.map((i) => send(phone, i))))),
    Promise.all(times.map((i) => send(taken, i))),
    Promise.all(times.map(() => send(keyedPhone, 0, key))),
  ]);
  const outcomes = (answers: Answer[]) => answers.map((a) => (a.status === 200 ? "200" : `${a.status} ${JSON.stringify(a.body.message)}`)).sort();
  return { numbers: groups.map(outcomes), taken: outcomes(takenAnswers), keyed: outcomes(keyed), keyedLeads: new Set(keyed.map((a) => a.body.lead_id)).size };
}

test("concurrent checked leads with duplicates among them get the unchecked path's answers: one accepted per number", async () => {
  const copies = 4;
  const run = async (campaign: string) => {
    const numbers = Array.from({ length: 12 }, () => uniquePhone());
    const taken = uniquePhone();
    expect((await postLead(server, server.auth, validLead({ phone_number: taken, vendor_campaign_name: "spring" }))).status).toBe(200);
    return { numbers, taken, answers: await burst(campaign, copies, numbers, taken) };
  };
  const unchecked = await run("spring");
  const checked = await run("plain");
  expect(checked.answers).toEqual(unchecked.answers);
  const oneAccepted = ["200", ...Array.from({ length: copies - 1 }, () => `422 ${JSON.stringify(errors(PHONE_BLOCKED))}`)].sort();
  for (const outcomes of checked.answers.numbers) expect(outcomes).toEqual(oneAccepted);
  expect(checked.answers.taken).toEqual(Array.from({ length: copies }, () => `422 ${JSON.stringify(errors(PHONE_BLOCKED))}`));
  expect(checked.answers.keyedLeads).toBe(1);
  // A number taken before the burst is refused before its check: no request for it.
  expect(requestsFor("plain", checked.taken)).toEqual([]);
  for (const phone of checked.numbers) {
    const stored = await server.rows("SELECT count(*) AS n FROM leads WHERE phone_e164 = $1", E164(phone));
    expect(Number(stored[0]!.n)).toBe(1);
  }
});
