// The Callbacks page against the real server and worker: a status's callbacks a page at a time
// (keyset: every callback once, none twice), filtered by vendor and the lead's received date; and
// "replay every one of these": a confirmation, then every selected callback (all pages) queued
// again and delivered, audited with the count, and refused without the form's CSRF token.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { validLead } from "../helpers/leads.ts";
import { post, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { addOperator, OPERATOR, signIn, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let receiver: Bun.Server<unknown>;
/** 410 Gone: the callback is dead after its first attempt. */
let receiverStatus = 410;
let operator: SignedIn;
const DEAD = 55; // more than a page (50)
const leadIds: string[] = [];

const statusOf = async (leadId: string) => (await server.store.read((t) => op(t.callbacks.detailOf(leadId))))!.callback.status;
const leadsLinked = (page: string) => [...page.matchAll(/<td class="mono"><a href="\/leads\/([0-9a-f-]{36})">/g)].map((match) => match[1]!);

beforeAll(async () => {
  receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("gone", { status: receiverStatus }) });
  server = await startApiTestServer({ consolePort: 0, allowPrivateCallbacks: true, holdPeriodMs: 0, workerPollIntervalMs: 20 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
  for (let i = 0; i < DEAD; i++) {
    const answer = await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `http://127.0.0.1:${receiver.port}/cb` }), {
      authorization: server.auth,
    });
    leadIds.push(answer.body.lead_id);
  }
  await waitUntil(async () => (await Promise.all(leadIds.map(statusOf))).every((status) => status === "dead"), 20_000);
});
afterAll(async () => {
  await server.stop();
  await receiver.stop(true);
});

test("Dead callbacks come a page at a time: the next page continues where the first ended, each callback once", async () => {
  const first = await operator.get("/callbacks?status=dead");
  expect(first.status).toBe(200);
  const next = /<a href="(\/callbacks\?[^"]+)" rel="next">Next page<\/a>/.exec(first.text)?.[1]?.replaceAll("&amp;", "&");
  expect(next).toBeDefined();
  const second = await operator.get(next!);
  const shown = [...leadsLinked(first.text), ...leadsLinked(second.text)];
  expect([leadsLinked(first.text).length, leadsLinked(second.text).length]).toEqual([50, DEAD - 50]);
  expect(shown.toSorted()).toEqual(leadIds.toSorted());
  expect(second.text).not.toContain('rel="next"');
});

test("The vendor and the lead's received dates filter the list; a bad date is a problem shown", async () => {
  const today = new Date().toISOString().slice(0, 10);
  const byVendor = await operator.get(`/callbacks?status=dead&vendor=vendor-a&since=${today}&until=${today}`);
  expect(leadsLinked(byVendor.text)).toHaveLength(50);
  const otherVendor = await operator.get("/callbacks?status=dead&vendor=nobody");
  expect([leadsLinked(otherVendor.text), otherVendor.text.includes("No dead callbacks of nobody.")]).toEqual([[], true]);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  expect(leadsLinked((await operator.get(`/callbacks?status=dead&since=${tomorrow}`)).text)).toEqual([]);
  expect((await operator.get("/callbacks?status=dead&until=yesterday")).text).toContain("Not a date (YYYY-MM-DD): yesterday");
});

test("Replay every one of these: a confirmation, then every selected callback on every page is delivered again, audited with the count", async () => {
  const list = await operator.get("/callbacks?status=dead&vendor=vendor-a");
  expect(list.text).toContain('href="/callbacks/replay?status=dead&amp;vendor=vendor-a"');
  const confirmation = await operator.get("/callbacks/replay?status=dead&vendor=vendor-a");
  expect(confirmation.status).toBe(200);
  expect(confirmation.text).toContain(`All <strong>dead callbacks of vendor-a</strong> (${DEAD} in all, on every page`);
  expect(confirmation.text).toContain(`<button type="submit">Replay ${DEAD} callbacks</button>`);
  expect(await statusOf(leadIds[0]!)).toBe("dead"); // the confirmation changes nothing

  const form = { status: "dead", vendor: "vendor-a" };
  expect((await operator.post("/callbacks/replay", form)).status).toBe(403);
  receiverStatus = 200;
  const replayed = await operator.post("/callbacks/replay", { ...form, csrf: operator.csrf });
  expect([replayed.status, replayed.headers.get("location")]).toEqual([303, `/callbacks?status=pending&vendor=vendor-a&done=replayed&count=${DEAD}`]);
  await waitUntil(async () => (await Promise.all(leadIds.map(statusOf))).every((status) => status === "delivered"), 20_000);
  const audit = await server.store.read((t) => op(t.audit.list(10)));
  expect(audit.map((entry) => [entry.actor, entry.action, entry.subject, entry.detail])).toContainEqual([
    `operator:${OPERATOR.name}`,
    "callback.replay-selected",
    "dead callbacks of vendor-a",
    `${DEAD} queued`,
  ]);
  expect((await operator.get("/callbacks/replay?status=dead")).text).toContain("No dead callbacks: nothing to replay.");
  expect((await operator.get("/callbacks/replay?status=pending")).status).toBe(400);
});

test("Paused endpoints are shown above the list: vendor, endpoint, failures, since when, and when each is tried again", async () => {
  expect((await operator.get("/callbacks")).text).not.toContain("Paused endpoints");
  const vendorId = (await server.store.read((t) => op(t.vendors.findByName("vendor-a"))))!.id;
  const pausedAt = Date.UTC(2026, 10, 27, 6, 0, 0);
  const insert =
    "INSERT INTO paused_endpoints (endpoint, vendor_id, target, failures, last_error, paused_at, paused_until) VALUES ($1, $2, $3, $4, $5, $6, $7)";
  await server.rows(
    insert,
    `${vendorId} https://hooks.example/dead`,
    vendorId,
    "https://hooks.example/dead",
    5,
    "HTTP 503",
    pausedAt,
    Date.UTC(2999, 0, 1, 12, 30, 0),
  );
  await server.rows(
    insert,
    `${vendorId} https://hooks.example/hooks/*`,
    vendorId,
    "https://hooks.example/hooks/*",
    5,
    "Timed out after 10000 ms",
    pausedAt,
    pausedAt + 5_000,
  );
  const page = (await operator.get("/callbacks")).text;
  expect(page).toContain("<h2>Paused endpoints</h2>");
  const rows = [
    ...page.matchAll(
      /<tr>\n<td>(.*)<\/td>\n<td class="mono">(.*)<\/td>\n<td>(\d+)<\/td>\n<td class="mono">(.*)<\/td>\n<td class="mono">(.*)<\/td>\n<td>(.*)<\/td>\n<\/tr>/g,
    ),
  ];
  expect(rows.map((row) => row.slice(1))).toEqual([
    ["vendor-a", "https://hooks.example/hooks/*", "5", "2026-11-27 06:00:00 UTC", "with its next due callback", "Timed out after 10000 ms"],
    ["vendor-a", "https://hooks.example/dead", "5", "2026-11-27 06:00:00 UTC", "2999-01-01 12:30:00 UTC", "HTTP 503"],
  ]);
  await server.rows("DELETE FROM paused_endpoints");
});

test("Discard on a dead callback's row acknowledges it (CSRF-checked, audited): marked discarded, no longer counted as waiting, still replayable", async () => {
  receiverStatus = 410;
  const answer = await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `http://127.0.0.1:${receiver.port}/cb` }), { authorization: server.auth });
  const leadId: string = answer.body.lead_id;
  await waitUntil(async () => (await statusOf(leadId)) === "dead", 20_000);
  const list = (await operator.get("/callbacks?status=dead&vendor=vendor-a")).text;
  expect(list).toContain(`<input type="hidden" name="lead" value="${leadId}"><input type="hidden" name="back" value="status=dead&amp;vendor=vendor-a">`);
  expect(list).toContain('<button type="submit" class="secondary">Discard</button>');
  const form = { lead: leadId, back: "status=dead&vendor=vendor-a" };
  expect((await operator.post("/callbacks/discard", form)).status).toBe(403);
  const deadWaiting = () => server.store.read((t) => op(t.callbacks.countDead()));
  expect(await deadWaiting()).toBe(1);
  const discarded = await operator.post("/callbacks/discard", { ...form, csrf: operator.csrf });
  expect([discarded.status, discarded.headers.get("location")]).toEqual([303, "/callbacks?status=dead&vendor=vendor-a&done=discarded"]);
  expect(await deadWaiting()).toBe(0);
  const after = (await operator.get("/callbacks?status=dead&vendor=vendor-a&done=discarded")).text;
  expect(after).toContain("Dead callback discarded: it no longer counts as waiting");
  expect(after).toMatch(/<td class="status-dead">dead <span class="muted">\(discarded \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)<\/span><\/td>/);
  expect(after).not.toContain(">Discard</button>");
  expect(after).toContain(`action="/leads/${leadId}/replay"`);
  // The lead's own page says so too, not just "dead".
  const leadPage = (await operator.get(`/leads/${leadId}`)).text;
  expect(leadPage).toMatch(/<span class="status-dead">dead <span class="muted">\(discarded \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\)<\/span><\/span> to/);
  const audit = await server.store.read((t) => op(t.audit.list(5)));
  expect(audit.map((entry) => [entry.actor, entry.action, entry.subject])).toContainEqual([`operator:${OPERATOR.name}`, "callback.discard", leadId]);
  const again = await operator.post("/callbacks/discard", { ...form, csrf: operator.csrf });
  expect([again.status, again.text.includes("That callback was discarded already.")]).toEqual([409, true]);
});
