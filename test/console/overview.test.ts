// The Overview against the real server and worker: after leads of every outcome (accepted, 400,
// 422 duplicate, 422 suppressed, 422 idempotency conflict, 401, 429, rejected at the end of the
// hold) and callbacks delivered, retried and dead, /overview.json has each of them (added from
// each instance's tally every few seconds), the page shows the same numbers as tables and loads its
// charts' script from the console itself; the Vendors page shows the vendor's volume and acceptance.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { leadWithout } from "../helpers/lead.ts";
import { validLead } from "../helpers/leads.ts";
import { basicAuth, startApiTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { addOperator, signIn, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let receiver: Bun.Server<unknown>;
let operator: SignedIn;
const HOLD_MS = 1_500;

beforeAll(async () => {
  // /ok delivers, /fail is retried (in an hour), /gone is dead at once (410).
  const answers: Record<string, number> = { "/ok": 200, "/fail": 500, "/gone": 410 };
  receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (request) => new Response(null, { status: answers[new URL(request.url).pathname] ?? 404 }) });
  server = await startApiTestServer({
    consolePort: 0,
    allowPrivateCallbacks: true,
    holdPeriodMs: HOLD_MS,
    workerPollIntervalMs: 50,
    callbackRetrySchedule: [3_600_000, 3_600_000],
    rateLimitPerSecond: 1,
    rateLimitBurst: 30,
  });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
});
afterAll(async () => {
  await server.stop();
  await receiver.stop(true);
});

const callback = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
/** A lead without a callback: nothing is sent for it. */
const quietLead = (overrides: Record<string, unknown> = {}) => validLead({ call_back_url: undefined, ...overrides });

async function overview(window = "hour") {
  const answer = await operator.get(`/overview.json?window=${window}`);
  expect([answer.status, answer.headers.get("content-type")]).toEqual([200, expect.stringContaining("application/json")]);
  return JSON.parse(answer.text);
}

test("after leads of every outcome, the overview's JSON and tables have each of them", async () => {
  const statuses: number[] = [];
  for (const path of ["/ok", "/fail", "/gone"]) statuses.push((await postLead(server, server.auth, validLead({ call_back_url: callback(path) }))).status);
  const held = quietLead({ phone_number: "(415) 555-0181" });
  statuses.push((await postLead(server, server.auth, held)).status);
  // Suppressed during its hold: rejected at its end.
  await server.store.write((t) => op(t.suppressions.add({ phoneE164: "+14155550181", reason: "test", createdAt: Date.now() })));
  statuses.push((await postLead(server, server.auth, leadWithout("phone_number"))).status);
  statuses.push((await postLead(server, server.auth, quietLead({ phone_number: "(415) 555-0181", customer_name: "Other" }))).status);
  const keyed = { "idempotency-key": "overview-key-1" };
  statuses.push((await postLead(server, server.auth, quietLead(), keyed)).status);
  statuses.push((await postLead(server, server.auth, quietLead(), keyed)).status);
  statuses.push((await postLead(server, basicAuth(VENDOR.name, "wrong-password-1"), quietLead())).status);
  while (!statuses.includes(429)) statuses.push((await prePing(server, server.auth, { phone_number: "2125550100" })).status);
  expect(statuses.slice(0, 10)).toEqual([200, 200, 200, 200, 400, 422, 200, 422, 401, expect.any(Number)]);

  const expected = {
    accepted: 5,
    invalid: 1,
    blocked: 1,
    idempotency_conflict: 1,
    unauthorized: 1,
    rate_limited: 1,
    decided_accepted: 4,
    decided_rejected: 1,
    delivered: 1,
    retry: 1,
    dead: 1,
  };
  let data = await overview();
  await waitUntil(async () => {
    data = await overview();
    return Object.entries(expected).every(([kind, count]) => data.totals[kind] === count);
  }, 20_000);
  expect(data.totals).toMatchObject(expected);
  expect(data.times).toHaveLength(60);
  const outcome = (kind: string) => data.outcomes.find((series: { kind: string }) => series.kind === kind);
  expect(outcome("accepted").values.reduce((a: number, b: number) => a + b, 0)).toBe(5);
  expect(data.vendors).toEqual([expect.objectContaining({ label: VENDOR.name })]);
  expect(data.decisionSeconds.mean).toBeGreaterThanOrEqual(HOLD_MS / 1000);
  expect(data.callbackMs.mean).toBeGreaterThan(0);
  expect(data.cells["total:accepted"]).toBe("5");

  // The day's and the week's windows read coarser buckets of the same counts.
  for (const [window, buckets] of [
    ["day", 96],
    ["week", 168],
  ] as const) {
    const coarse = await overview(window);
    expect([coarse.times.length, coarse.totals]).toEqual([buckets, data.totals]);
  }

  const page = await operator.get("/overview");
  expect(page.status).toBe(200);
  expect(page.text).toContain('<td data-cell="total:accepted">5</td>');
  expect(page.text).toContain('<td data-cell="total:decided_rejected">1</td>');
  expect(page.text).toContain('data-source="/overview.json?window=hour"');
  expect(page.text).toContain('<script type="module" src="/assets/overview.mjs"></script>');
});

test("the charts' script and uPlot are served by the console itself, without a session", async () => {
  for (const [path, type] of [
    ["/assets/uplot.js", "text/javascript"],
    ["/assets/uplot.css", "text/css"],
    ["/assets/overview.mjs", "text/javascript"],
    ["/assets/overview.css", "text/css"],
  ]) {
    const answer = await fetch(`${server.consoleUrl}${path}`);
    expect([path, answer.status, answer.headers.get("content-type")]).toEqual([path, 200, expect.stringContaining(type!)]);
    expect((await answer.text()).length).toBeGreaterThan(100);
  }
  expect((await fetch(`${server.consoleUrl}/assets/nothing.js`, { redirect: "manual" })).status).toBe(303);
  expect((await fetch(`${server.consoleUrl}/overview.json`, { redirect: "manual" })).status).toBe(303);
});

test("Vendors shows each vendor's volume and acceptance over the last day and week", async () => {
  await waitUntil(async () => (await overview()).totals.decided_rejected === 1, 20_000);
  const page = await operator.get("/vendors");
  const row = new RegExp(`<tr>\\s*<td>${VENDOR.name}</td>[\\s\\S]*?</tr>`).exec(page.text)![0];
  // 5 leads taken, 4 refused (400, 422, 422, 429; the 401 is no vendor's); 4 of the 5 decided accepted.
  expect(row).toContain('<td data-volume="day">5 leads, 4 refused; 80 % accepted</td>');
  expect(row).toContain('<td data-volume="week">5 leads, 4 refused; 80 % accepted</td>');
});
