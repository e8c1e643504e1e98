// Caps at intake (docs/contract.md §2, §10): counted by the database in the lead's transaction,
// exact under concurrency, last in the order of checks. On SQLite, or on PostgreSQL with
// LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { PHONE_BLOCKED } from "../../src/contract/texts.ts";
import { calendarWindow } from "../../src/policy/index.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { installPolicy } from "../helpers/policy.ts";
import { basicAuth, get, startApiTestServer, untilAuthenticates, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

let server: ApiTestServer;
const OTHER = { name: "vendor-b", password: "password-b-123" };
let otherAuth: string;

beforeAll(async () => {
  // A short hold, so that a lead is decided within the test that posted it.
  // Its tests import policies and wait until they apply: read every 100 ms rather than every second.
  server = await startApiTestServer({ holdPeriodMs: 200, workerPollIntervalMs: 20, policyReloadMs: 100 });
  await createVendor(server.store, OTHER.name, OTHER.password);
  otherAuth = basicAuth(OTHER.name, OTHER.password);
  await untilAuthenticates(server, otherAuth);
});
afterAll(() => server.stop());

const install = (document: Record<string, unknown>) => installPolicy(server.store, [server], server.auth, document);
const errors = (...texts: string[]) => texts.map((error) => ({ error }));
const used = async (cap: string) =>
  (await server.rows("SELECT bucket, used FROM cap_usage WHERE cap_name = $1 ORDER BY bucket", cap)).map((row) => [row.bucket, row.used]);
const leadsOf = async (campaign: string) => Number((await server.rows("SELECT count(*) AS n FROM leads WHERE vendor_campaign_name = $1", campaign))[0]!.n);
/** Waits, when the next minute is less than 5 s away, until it starts: a test counting in one minute or hour window keeps to one. */
async function awayFromWindowEnd(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 5_000) await Bun.sleep(left + 50);
}
/** Seconds until the day's end in New York, as Retry-After says it (at least 1), at `at`. */
const untilNewYorkMidnight = (at: number) => Math.max(1, Math.ceil((calendarWindow("day", at, "America/New_York").end - at) / 1000));

test("a cap with 5 slots left and 20 concurrent postLeads: exactly 5 are accepted, 15 get 422 with the cap's reason and Retry-After", async () => {
  await install({
    caps: [{ name: "burst", campaigns: ["burst"], counts: "leads", max: 7, per: "day", time_zone: "America/New_York", reason: "Daily cap reached" }],
  });
  for (let i = 0; i < 2; i++) expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "burst" }))).status).toBe(200);
  const before = Date.now();
  const answers = await Promise.all(Array.from({ length: 20 }, () => postLead(server, server.auth, validLead({ vendor_campaign_name: "burst" }))));
  const after = Date.now();
  expect(answers.filter((a) => a.status === 200)).toHaveLength(5);
  const refused = answers.filter((a) => a.status === 422);
  expect(refused).toHaveLength(15);
  for (const answer of refused) {
    expect(answer.body).toEqual({ success_bit: false, message: errors("Daily cap reached") });
    const retryAfter = Number(answer.headers.get("retry-after"));
    expect(retryAfter).toBeGreaterThanOrEqual(untilNewYorkMidnight(after));
    expect(retryAfter).toBeLessThanOrEqual(untilNewYorkMidnight(before));
  }
  expect(await leadsOf("burst")).toBe(7);
  expect(await used("burst")).toEqual([["", 7]]);
});

test('an "each": "vendor" cap counts each vendor apart; the default reason names the cap', async () => {
  await install({ caps: [{ name: "per-vendor", campaigns: ["each-vendor"], counts: "leads", max: 2, per: "hour", each: "vendor" }] });
  const lead = () => validLead({ vendor_campaign_name: "each-vendor" });
  const statuses = async (auth: string, n: number) => {
    const list = [];
    for (let i = 0; i < n; i++) list.push((await postLead(server, auth, lead())).status);
    return list;
  };
  expect(await statuses(server.auth, 3)).toEqual([200, 200, 422]);
  expect(await statuses(otherAuth, 2)).toEqual([200, 200]);
  const refused = await postLead(server, otherAuth, lead());
  expect(refused.body.message).toEqual(errors("Cap reached: per-vendor"));
  expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(3_600);
  expect(await used("per-vendor")).toEqual([
    ["vendor-a", 2],
    ["vendor-b", 2],
  ]);
});

test("a pings cap counts prePings answered 200 and refuses past its max; postLead does not count against it", async () => {
  await install({ caps: [{ name: "pings", campaigns: ["pinged"], counts: "pings", max: 2, per: "minute", reason: "Too many pings" }] });
  const ping = () => prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: "pinged" });
  await awayFromWindowEnd();
  expect((await ping()).status).toBe(200);
  expect((await ping()).status).toBe(200);
  const refused = await ping();
  expect(refused.status).toBe(422);
  expect(refused.body).toEqual({ can_post_phone_bit: false, message: errors("Too many pings") });
  const retryAfter = Number(refused.headers.get("retry-after"));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  // A prePing without a campaign is out of its scope; a postLead is not a ping.
  expect((await prePing(server, server.auth)).status).toBe(200);
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "pinged" }))).status).toBe(200);
  expect(await used("pings")).toEqual([["", 2]]);
});

test("prePing answers 422 with Retry-After for a full leads cap in its scope, and takes no slot", async () => {
  await install({ caps: [{ name: "one-lead", campaigns: ["one-lead"], counts: "leads", max: 1, per: "day", time_zone: "America/New_York" }] });
  const ping = () => prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: "one-lead" });
  expect((await ping()).status).toBe(200);
  expect(await used("one-lead")).toEqual([]);
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "one-lead" }))).status).toBe(200);
  const refused = await ping();
  expect(refused.status).toBe(422);
  expect(refused.body.message).toEqual(errors("Cap reached: one-lead"));
  expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(await used("one-lead")).toEqual([["", 1]]);
  // Out of its scope (another campaign).
  expect((await prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: "other" })).status).toBe(200);
});

test("an idempotent replay and a re-post of the same lead take no new slot", async () => {
  await install({ caps: [{ name: "replays", campaigns: ["replays"], counts: "leads", max: 1, per: "day" }] });
  const lead = validLead({ vendor_campaign_name: "replays" });
  const first = await postLead(server, server.auth, lead, { "idempotency-key": "cap-replay-1" });
  expect(first.status).toBe(200);
  const replay = await postLead(server, server.auth, lead, { "idempotency-key": "cap-replay-1" });
  expect(replay.status).toBe(200);
  expect(replay.headers.get("idempotent-replayed")).toBe("true");
  expect(replay.body.lead_id).toBe(first.body.lead_id);
  const repost = await postLead(server, server.auth, lead);
  expect(repost.status).toBe(200);
  expect(repost.body.lead_id).toBe(first.body.lead_id);
  expect(await used("replays")).toEqual([["", 1]]);
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "replays" }))).body.message).toEqual(errors("Cap reached: replays"));
});

test("a lead refused by a rule, a schedule or its number's eligibility takes no slot", async () => {
  await install({
    rules: [{ name: "ca-only", campaigns: ["ordered"], require: { field: "state", op: "equals", value: "CA" }, reason: "CA only" }],
    schedules: [{ name: "closed-to-b", vendors: ["vendor-b"], open: {}, reason: "Closed to vendor-b" }],
    caps: [{ name: "ordered", campaigns: ["ordered"], counts: "leads", max: 2, per: "day" }],
  });
  const accepted = validLead({ vendor_campaign_name: "ordered", state: "CA" });
  expect((await postLead(server, server.auth, accepted)).status).toBe(200);
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "ordered", state: "TX" }))).body.message).toEqual(errors("CA only"));
  const duplicate = await postLead(server, server.auth, { ...accepted, customer_name: "Someone Else" });
  expect(duplicate.body.message).toEqual(errors(PHONE_BLOCKED));
  expect((await postLead(server, otherAuth, validLead({ vendor_campaign_name: "ordered", state: "CA" }))).body.message).toEqual(errors("Closed to vendor-b"));
  expect(await used("ordered")).toEqual([["", 1]]);
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "ordered", state: "CA" }))).status).toBe(200);
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "ordered", state: "CA" }))).body.message).toEqual(
    errors("Cap reached: ordered"),
  );
  expect(await leadsOf("ordered")).toBe(2);
});

test("the window rolls over: a full counter of the window before does not count, a full one of this window does until it ends", async () => {
  await install({ caps: [{ name: "rolling", campaigns: ["rolling"], counts: "leads", max: 1, per: "day", time_zone: "America/Chicago" }] });
  const now = Date.now();
  const today = calendarWindow("day", now, "America/Chicago");
  const yesterday = calendarWindow("day", today.start - 1, "America/Chicago");
  await server.rows(
    "INSERT INTO cap_usage (cap_name, bucket, window_start, window_end, used) VALUES ('rolling', '', $1, $2, 1)",
    yesterday.start,
    yesterday.end,
  );
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "rolling" }))).status).toBe(200);
  const refused = await postLead(server, server.auth, validLead({ vendor_campaign_name: "rolling" }));
  expect(refused.status).toBe(422);
  const retryAfter = Number(refused.headers.get("retry-after"));
  expect(Math.abs(retryAfter - (today.end - now) / 1000)).toBeLessThan(30);
  expect(await server.rows("SELECT window_start, used FROM cap_usage WHERE cap_name = 'rolling' ORDER BY window_start")).toEqual([
    { window_start: yesterday.start, used: 1 },
    { window_start: today.start, used: 1 },
  ]);
});

test("several full caps: each reason in the document's order, Retry-After until the latest window ends; no slot of the others is kept", async () => {
  await install({
    caps: [
      { name: "hourly", campaigns: ["two-caps"], counts: "leads", max: 1, per: "hour", reason: "Hourly cap" },
      { name: "weekly", campaigns: ["two-caps"], counts: "leads", max: 1, per: "week", reason: "Weekly cap" },
      { name: "roomy", campaigns: ["two-caps"], counts: "leads", max: 100, per: "day" },
    ],
  });
  await awayFromWindowEnd();
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "two-caps" }))).status).toBe(200);
  const now = Date.now();
  const refused = await postLead(server, server.auth, validLead({ vendor_campaign_name: "two-caps" }));
  expect(refused.body.message).toEqual(errors("Hourly cap", "Weekly cap"));
  const week = calendarWindow("week", now, "UTC");
  expect(Math.abs(Number(refused.headers.get("retry-after")) - (week.end - now) / 1000)).toBeLessThan(30);
  expect(await used("roomy")).toEqual([["", 1]]);
});

test("a lead rejected at its final result gives no slot back", async () => {
  // A final rule no lead passes rejects it at its decision, however late the test gets to look.
  await install({
    rules: [{ name: "never", stage: "final", campaigns: ["no-give-back"], require: { field: "state", op: "equals", value: "ZZ" } }],
    caps: [{ name: "no-give-back", campaigns: ["no-give-back"], counts: "leads", max: 1, per: "day" }],
  });
  const accepted = await postLead(server, server.auth, validLead({ vendor_campaign_name: "no-give-back" }));
  expect(accepted.status).toBe(200);
  await waitUntil(async () => (await get(`${server.url}/v1/leads/${accepted.body.lead_id}`, { authorization: server.auth })).body.status === "rejected");
  expect(await used("no-give-back")).toEqual([["", 1]]);
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "no-give-back" }))).body.message).toEqual(errors("Cap reached: no-give-back"));
});
