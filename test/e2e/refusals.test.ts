// The refusal log (docs/operations.md): every postLead answered 400 or 422 is recorded with its
// vendor, campaign, masked phone, reasons (without the values a vendor sent) and request id, and
// for a policy refusal the entries that refused it; nothing unmasked is stored. The console finds
// refusals by vendor, reason and UTC day; the maintenance job purges only those older than the
// retention, a chunk at a time; lead_ingress_policy_refusals_total counts them by rule. On SQLite,
// or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { op } from "../../src/db/script.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { refusalsPerEntry } from "../../src/refusals/per-entry.ts";
import type { ListedRefusal, Refusal } from "../../src/store/refusals/index.ts";
import { createMaintenanceJob, REFUSAL_CHUNK } from "../../src/worker/maintenance.ts";
import { postLead } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { basicAuth, startApiTestServer, untilAuthenticates, type ApiTestServer } from "../helpers/server.ts";
import { addOperator, signIn, type SignedIn } from "../console/console-client.ts";

let server: ApiTestServer;
let operator: SignedIn;
const OTHER = { name: "vendor-b", password: "password-b-123" };
let otherAuth: string;
const DAY = 86_400_000;
const EXAMPLE_NAME = String(validLead().customer_name);

beforeAll(async () => {
  // Its tests import policies and wait until they apply: read every 100 ms rather than every second.
  server = await startApiTestServer({ consolePort: 0, policyReloadMs: 100 });
  await createVendor(server.store, OTHER.name, OTHER.password);
  otherAuth = basicAuth(OTHER.name, OTHER.password);
  await untilAuthenticates(server, otherAuth);
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
});
afterAll(() => server.stop());

const all = (): Promise<ListedRefusal[]> => Promise.resolve(server.store.read((t) => op(t.refusals.search({ limit: 10_000 }))));

/** The refusal of `requestId`, once the log has written it (it is written after the answer, in a batch). */
async function refusalOf(requestId: string): Promise<ListedRefusal> {
  const started = Date.now();
  for (;;) {
    const found = (await all()).find((row) => row.requestId === requestId);
    if (found) return found;
    if (Date.now() - started > 5_000) throw new Error(`no refusal recorded for ${requestId}`);
    await Bun.sleep(20);
  }
}

const STATES_SERVED = {
  name: "states-served",
  campaigns: ["solar-q4"],
  require: { field: "state", op: "in", value: ["CA", "NY"] },
  reason: "State not served: {state} (call {phone_number})",
};

/** Posts leads the policy refuses until it is in force (it is read every second); answers the refused one's request id. */
async function refusedByPolicy(phone: string): Promise<{ requestId: string; message: unknown }> {
  const started = Date.now();
  for (let i = 0; ; i++) {
    const requestId = `policy-${i}-${Date.now()}`;
    const answer = await postLead(server, server.auth, validLead({ state: "TX", vendor_campaign_name: "Solar-Q4", phone_number: phone }), {
      "x-request-id": requestId,
    });
    if (answer.status === 422) return { requestId, message: answer.body.message };
    if (Date.now() - started > 5_000) throw new Error("the policy was not applied within 5 s");
    phone = phone.replace(/\d{4}$/, (digits) => String((Number(digits) + 1) % 10_000).padStart(4, "0"));
    await Bun.sleep(50);
  }
}

let invalidId = "";
let policyId = "";
const INVALID_PHONE = "(212) 555-01234";
const POLICY_PHONE = "(917) 555-7301";

test("a 400 is recorded: vendor, campaign, masked phone, every reason without the values sent, the request id", async () => {
  invalidId = `invalid-${Date.now()}`;
  const answer = await postLead(
    server,
    server.auth,
    validLead({ phone_number: INVALID_PHONE, email: "someone-at-example.com", vendor_campaign_name: "spring" }),
    {
      "x-request-id": invalidId,
    },
  );
  expect(answer.status).toBe(400);
  expect(answer.headers.get("x-request-id")).toBe(invalidId);
  const row = await refusalOf(invalidId);
  const vendor = (await server.rows("SELECT id FROM vendors WHERE name = $1", "vendor-a"))[0]!.id;
  expect(row).toMatchObject({ vendorId: vendor, campaign: "spring", status: 400, phoneMasked: "21*****1234", refusedBy: "[]" });
  expect(JSON.parse(row.reasons)).toEqual(["Invalid Phone Number: …", "Invalid Email: …"]);
});

test("a body that is not JSON is a 400 recorded too, with no campaign nor phone", async () => {
  const requestId = `not-json-${Date.now()}`;
  const answer = await fetch(`${server.url}/v1/postLead`, {
    method: "POST",
    headers: { authorization: server.auth, "content-type": "application/json", "x-request-id": requestId },
    body: '{"phone_number": "(212) 555-0199",',
  });
  expect(answer.status).toBe(400);
  const { message } = (await answer.json()) as { message: { error: string }[] };
  const row = await refusalOf(requestId);
  expect(row).toMatchObject({ status: 400, campaign: null, phoneMasked: null });
  expect(JSON.parse(row.reasons)).toEqual(message.map((item) => item.error));
});

test("a policy 422 is recorded with the rule's reason, the rule's name and the phone masked, even where the reason quoted it", async () => {
  const outcome = await importPolicy(server.store, JSON.stringify({ rules: [STATES_SERVED] }), "cli:test");
  expect(outcome.kind).toBe("imported");
  const refused = await refusedByPolicy(POLICY_PHONE);
  policyId = refused.requestId;
  expect(refused.message).toEqual([{ error: expect.stringMatching(/^State not served: TX \(call \+1917555\d{4}\)$/) }]);
  const row = await refusalOf(policyId);
  expect(row).toMatchObject({ campaign: "Solar-Q4", status: 422, phoneMasked: expect.stringMatching(/^\+1\*{6}\d{4}$/) });
  expect(JSON.parse(row.reasons)).toEqual([expect.stringMatching(/^State not served: TX \(call \+1\*{6}\d{4}\)$/)]);
  expect(JSON.parse(row.refusedBy)).toEqual([{ kind: "rule", name: "states-served" }]);
});

test("nothing stored in the refusal log holds a phone number unmasked, nor any other field of the body", async () => {
  const rows = await all();
  for (const row of rows) expect(`${row.phoneMasked} ${row.reasons} ${row.campaign}`).not.toMatch(/\d{5}/);
  const stored = JSON.stringify(rows);
  for (const digits of ["2125550123", "9175557"]) expect(stored).not.toContain(digits);
  expect(stored).not.toContain("someone-at-example.com");
  expect(stored).not.toContain(EXAMPLE_NAME);
});

test("an accepted lead and another endpoint's refusal are not recorded", async () => {
  const accepted = `accepted-${Date.now()}`;
  expect((await postLead(server, server.auth, validLead(), { "x-request-id": accepted })).status).toBe(200);
  const ping = `ping-${Date.now()}`;
  expect((await fetch(`${server.url}/v1/prePing`, { method: "POST", headers: { authorization: server.auth, "x-request-id": ping }, body: "{}" })).status).toBe(
    400,
  );
  await refusalOf(policyId);
  await Bun.sleep(100);
  expect((await all()).map((row) => row.requestId)).not.toContain(accepted);
  expect((await all()).map((row) => row.requestId)).not.toContain(ping);
});

test("the metric counts policy refusals by rule name", async () => {
  const before = await ruleCount();
  await refusedByPolicy("(917) 555-7401");
  expect(await ruleCount()).toBe(before + 1);
});

async function ruleCount(): Promise<number> {
  const scrape = await (await fetch(`${server.url}/metrics`)).text();
  return Number(/^lead_ingress_policy_refusals_total\{kind="rule",name="states-served"\} (\d+)$/m.exec(scrape)?.[1] ?? 0);
}

test("refusals per entry since a time: each entry of a combination counted, older refusals and 400s not", async () => {
  const vendor = (await server.rows("SELECT id FROM vendors WHERE name = $1", "vendor-a"))[0]!.id as string;
  const now = Date.now();
  const by = (...entries: [string, string][]) => JSON.stringify(entries.map(([kind, name]) => ({ kind, name })));
  const refused = (at: number, refusedBy: string): Refusal => ({ ...row(at, vendor, `entries-${at}-${refusedBy}`, ["x"]), refusedBy });
  await server.store.write((t) =>
    op(
      t.refusals.insert([
        refused(now, by(["rule", "zip-nine"], ["rule", "has-city"])),
        refused(now + 1, by(["rule", "zip-nine"], ["rule", "has-city"])),
        refused(now + 2, by(["rule", "zip-nine"])),
        refused(now + 3, by(["schedule", "call-center"])),
        refused(now - 3_600_000, by(["rule", "zip-nine"])),
      ]),
    ),
  );
  const counts = await refusalsPerEntry(server.store, now - 60_000);
  expect(counts.filter((entry) => entry.name !== "states-served")).toEqual([
    { kind: "rule", name: "zip-nine", count: 3 },
    { kind: "rule", name: "has-city", count: 2 },
    { kind: "schedule", name: "call-center", count: 1 },
  ]);
  expect(counts.find((entry) => entry.name === "states-served")?.count).toBeGreaterThanOrEqual(1);
});

/** The request ids a Refusals page lists, in its order. */
async function listed(query: string): Promise<string[]> {
  const page = await operator.get(`/refusals?${query}`);
  expect(page.status).toBe(200);
  return [...page.text.matchAll(/<td class="mono">([^<]+)<\/td>\n<\/tr>/g)].map((match) => match[1]!);
}

const row = (at: number, vendorId: string, requestId: string, reasons: string[]): Refusal => ({
  at,
  vendorId,
  campaign: "old",
  phoneMasked: "+1******0000",
  status: 422,
  reasons: JSON.stringify(reasons),
  requestId,
  refusedBy: "[]",
});

test("the console's Refusals page finds refusals by vendor, reason (any case, nothing a wildcard) and UTC day, newest first", async () => {
  const vendorB = (await server.rows("SELECT id FROM vendors WHERE name = $1", OTHER.name))[0]!.id as string;
  const twoDaysAgo = Date.now() - 2 * DAY;
  await server.store.write((t) =>
    op(
      t.refusals.insert([
        row(twoDaysAgo, vendorB, "b-earlier", ["Daily cap reached"]),
        row(twoDaysAgo + 1, vendorB, "b-later", ['Has "quotes" & <tags> 100%']),
      ]),
    ),
  );
  const day = (at: number) => new Date(at).toISOString().slice(0, 10);
  const today = day(Date.now());

  expect(await listed(`vendor=${OTHER.name}`)).toEqual(["b-later", "b-earlier"]);
  expect(await listed("vendor=vendor-a")).toEqual(expect.arrayContaining([invalidId, policyId]));
  expect(await listed("vendor=vendor-a")).not.toContain("b-later");
  expect(await listed("reason=state+NOT+served&vendor=vendor-a")).toContain(policyId);
  expect(await listed("reason=state+NOT+served")).not.toContain(invalidId);
  expect(await listed("reason=invalid+email")).toEqual([invalidId]);
  expect(await listed(`reason=${encodeURIComponent('"quotes" & <tags> 100%')}`)).toEqual(["b-later"]);
  expect(await listed("reason=%25")).toEqual(["b-later"]);
  expect(await listed("reason=_")).toEqual([]);
  expect(await listed(`since=${day(twoDaysAgo)}&until=${day(twoDaysAgo)}`)).toEqual(["b-later", "b-earlier"]);
  expect(await listed(`since=${today}&until=${today}`)).toEqual(expect.arrayContaining([invalidId, policyId]));
  expect(await listed(`since=${today}&until=${today}`)).not.toContain("b-earlier");
  // Each row shows what the log keeps, escaped.
  const page = (await operator.get(`/refusals?vendor=${OTHER.name}`)).text;
  expect(page).toContain("&quot;quotes&quot; &amp; &lt;tags&gt; 100%");
  expect(page).toContain("+1******0000");
  expect((await operator.get("/refusals?vendor=nobody")).text).toContain("No such vendor: nobody");
});

test("the Refusals page pages a hundred at a time, newest first, each refusal once", async () => {
  const vendor = (await server.rows("SELECT id FROM vendors WHERE name = $1", OTHER.name))[0]!.id as string;
  const at = Date.now() - 3 * DAY;
  await server.store.write((t) => op(t.refusals.insert(Array.from({ length: 150 }, (_, i) => row(at + i, vendor, `paged-${i}`, ["Paged"])))));
  const first = await operator.get("/refusals?reason=paged");
  const ids = (text: string) => [...text.matchAll(/<td class="mono">(paged-\d+)<\/td>/g)].map((match) => match[1]!);
  expect(ids(first.text)).toEqual(Array.from({ length: 100 }, (_, i) => `paged-${149 - i}`));
  const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(first.text)![1]!.replaceAll("&amp;", "&");
  const second = await operator.get(older);
  expect(ids(second.text)).toEqual(Array.from({ length: 50 }, (_, i) => `paged-${49 - i}`));
  expect(second.text).not.toContain('rel="next"');
});

test("the purge deletes only refusals older than the retention, a chunk per statement with a pause between", async () => {
  const vendor = (await server.rows("SELECT id FROM vendors WHERE name = $1", OTHER.name))[0]!.id as string;
  const now = Date.now();
  const retention = 30 * DAY;
  const old = REFUSAL_CHUNK * 2 + 500;
  await server.store.write((t) =>
    op(
      t.refusals.insert([
        ...Array.from({ length: old }, (_, i) => row(now - retention - 1 - i, vendor, `old-${i}`, ["Old"])),
        row(now - retention + 60_000, vendor, "kept", ["Kept"]),
      ]),
    ),
  );
  const olderThanRetention = async () => (await server.store.read((t) => op(t.refusals.search({ before: now - retention, limit: 10_000 })))).length;
  const before = (await all()).length;
  expect(await olderThanRetention()).toBe(old);

  let clock = now;
  const job = createMaintenanceJob({ store: server.store as never, clock: () => clock, refusalRetentionMs: retention });
  await job.runOnce();
  expect(await olderThanRetention()).toBe(old - REFUSAL_CHUNK);
  await job.runOnce(); // within the pause: nothing more yet
  expect(await olderThanRetention()).toBe(old - REFUSAL_CHUNK);
  clock += 100;
  await job.runOnce();
  clock += 100;
  await job.runOnce();
  expect(await olderThanRetention()).toBe(0);
  const left = await all();
  expect(left.length).toBe(before - old);
  expect(left.map((r) => r.requestId)).toEqual(expect.arrayContaining(["kept", invalidId, policyId, "b-earlier"]));
});

test("a full cap's 422 is recorded and counted with the cap's name", async () => {
  const cap = { name: "tiny-cap", vendors: [OTHER.name], counts: "leads", max: 1, per: "day", reason: "Daily cap reached" };
  expect((await importPolicy(server.store, JSON.stringify({ rules: [STATES_SERVED], caps: [cap] }), "cli:test")).kind).toBe("imported");
  const started = Date.now();
  let requestId = "";
  for (let i = 0; requestId === ""; i++) {
    const id = `cap-${i}-${Date.now()}`;
    const answer = await postLead(server, otherAuth, validLead(), { "x-request-id": id });
    if (answer.status === 422) {
      expect(answer.body.message).toEqual([{ error: "Daily cap reached" }]);
      requestId = id;
    } else if (Date.now() - started > 5_000) throw new Error("the cap was not applied within 5 s");
  }
  expect(JSON.parse((await refusalOf(requestId)).refusedBy)).toEqual([{ kind: "cap", name: "tiny-cap" }]);
  const scrape = await (await fetch(`${server.url}/metrics`)).text();
  expect(scrape).toMatch(/^lead_ingress_policy_refusals_total\{kind="cap",name="tiny-cap"\} [1-9]\d*$/m);
  expect((await importPolicy(server.store, JSON.stringify({ rules: [STATES_SERVED] }), "cli:test")).kind).toBe("imported");
});
