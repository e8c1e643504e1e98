// The operator's console in a real browser: Debian's Chromium driven by playwright-core signs in
// (the Overview, with its charts), finds a lead by its phone written another way, opens its timeline (received, accepted, the
// callback's attempt), and opens a lead whose every free-text field is hostile markup: it shows as
// text, and no script runs; then every other section. It finds a lead by part of its campaign in
// another case. It decides a held lead and sees the callback reach the receiver, and disables a
// vendor (after typing its name to confirm) and sees its next postLead refused. On the Policy page
// an invalid edit is refused with its problem's path, a valid one is in force for postLead, and an
// entry is disabled by its button. Every request stays on the console's origin (the CSP allows nothing
// else, and a refusal would be logged as an error). Screenshots: artifacts/console-*.png.
//
// Not part of `bun test` (see swagger.browser.ts): `bun run test:browser`; against the compiled
// binary with LEAD_INGRESS_TEST_BINARY=/path/to/lead-ingress.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { op } from "../../src/db/script.ts";
import { validLead } from "../helpers/leads.ts";
import { basicAuth, post } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { ARTIFACTS, record, screenshotInto } from "./chromium.ts";
import { type BrowserFixture, startBrowserFixture } from "./fixture.ts";

const VENDOR = { name: "browser-vendor", password: "browser-password-1" };
const OPERATOR = { name: "browser-operator", password: "browser-operator-password" };
const HOSTILE = `"'><img src=x onerror=alert(1)><script>alert(2)</script>`;

let fixture: BrowserFixture;
let receiver: Bun.Server<unknown>;
/** Every callback body the receiver got. */
const callbacks: Record<string, unknown>[] = [];

beforeAll(async () => {
  receiver = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      callbacks.push((await request.json()) as Record<string, unknown>);
      return new Response(null, { status: 204 });
    },
  });
  fixture = await startBrowserFixture({
    vendor: VENDOR,
    operator: OPERATOR,
    serverArgs: ["--console-port", "0", "--hold-period", "2s", "--allow-private-callbacks", "--worker-poll-interval", "50ms"],
  });
});

afterAll(async () => {
  await fixture?.cleanup();
  await receiver?.stop(true);
});

const vendorPost = (fields: Record<string, unknown>) =>
  post(`${fixture.url}/v1/postLead`, validLead({ call_back_url: `http://127.0.0.1:${receiver.port}/cb`, ...fields }), {
    authorization: basicAuth(VENDOR.name, VENDOR.password),
  });
const callbackDelivered = (leadId: string) =>
  waitUntil(async () => (await fixture.store.read((t) => op(t.callbacks.find(leadId))))?.status === "delivered", 15_000);

/** A lead through its hold (2 s) to its delivered callback. */
async function postLead(fields: Record<string, unknown>): Promise<string> {
  const leadId = (await vendorPost(fields)).body.lead_id as string;
  await callbackDelivered(leadId);
  return leadId;
}

/** The console's `path`, signing in first when no test before has (a test run alone, with -t). */
async function openSignedIn(page: Page, path: string) {
  await page.goto(`${fixture.consoleUrl}${path}`);
  if (new URL(page.url()).pathname === "/login") {
    await fixture.signInToConsole(page);
    await page.goto(`${fixture.consoleUrl}${path}`);
  }
}

const screenshot = (page: Page, name: string) => screenshotInto(ARTIFACTS, page, name);

test("sign in, find a lead by its phone written another way, open its timeline; a hostile lead is text and runs nothing", async () => {
  const leadId = await postLead({ phone_number: "(212) 555-0123", customer_name: "Jane Doe" });
  const hostileId = await postLead(
    Object.fromEntries(
      ["customer_name", "city", "street", "dm_name", "utility", "mailing_street", "mailing_city", "vendor_campaign_name"].map((field) => [field, HOSTILE]),
    ),
  );
  const page = await fixture.page();
  const seen = record(page);

  // Without a session the console sends the browser to its sign-in page.
  await page.goto(`${fixture.consoleUrl}/leads`);
  expect(new URL(page.url()).pathname).toBe("/login");
  await fixture.signInToConsole(page);
  await screenshot(page, "console-overview.png");
  await page.getByRole("navigation").getByRole("link", { name: "Leads" }).click();
  await page.getByRole("heading", { name: "Leads" }).waitFor();

  // The number as E.164 with dots: the same number as the vendor's "(212) 555-0123".
  await page.getByLabel("Phone").fill("+1 212.555.0123");
  await page.getByRole("button", { name: "Search" }).click();
  const link = page.getByRole("link", { name: leadId });
  await link.waitFor();
  expect(await page.locator("tbody tr").count()).toBe(1);
  await screenshot(page, "console-leads.png");

  // A campaign by a part of its name in another case: "PRIN" finds the "spring" lead, not the hostile one.
  await page.getByLabel("Phone").fill("");
  await page.getByLabel("Campaign").fill("PRIN");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByRole("link", { name: leadId }).waitFor();
  expect(await page.getByRole("link", { name: hostileId }).count()).toBe(0);

  await link.click();
  const timeline = page.locator("ol.timeline");
  await timeline.waitFor();
  const events = await timeline.locator("li").allInnerTexts();
  expect(events).toEqual([
    expect.stringContaining(`Received from ${VENDOR.name}`),
    expect.stringContaining("accepted"),
    expect.stringMatching(/Callback attempt 1: HTTP 204, \d+ ms/),
  ]);
  await screenshot(page, "console-lead.png");

  await page.goto(`${fixture.consoleUrl}/leads/${hostileId}`);
  await timeline.waitFor();
  const customerName = page.locator("tr", { has: page.locator("th", { hasText: /^customer_name$/ }) }).locator("td");
  expect(await customerName.innerText()).toBe(HOSTILE);
  expect(await page.evaluate("document.querySelectorAll('img, script').length")).toBe(0);
  await screenshot(page, "console-hostile-lead.png");

  // Every other section, as an operator first sees it.
  for (const section of ["callbacks", "vendors", "suppression", "audit"]) {
    await page.goto(`${fixture.consoleUrl}/${section}`);
    await page.locator("main h1").waitFor();
    await screenshot(page, `console-${section}.png`);
  }

  expect(seen.dialogs).toEqual([]);
  expect(seen.errors).toEqual([]);
  expect(seen.urls.filter((url) => new URL(url).origin !== fixture.consoleUrl)).toEqual([]);
}, 240_000);

test("decide a held lead from its page and see its callback reach the receiver; disable a vendor and see its next postLead get 401", async () => {
  const page = await fixture.page();
  const seen = record(page);

  // Held for 2 s: the operator rejects it during the hold.
  const leadId = (await vendorPost({})).body.lead_id as string;
  await page.goto(`${fixture.consoleUrl}/leads/${leadId}`);
  await page.getByLabel("Decision").selectOption("reject");
  await page.getByLabel("Reason").fill("failed the fraud check");
  await page.getByRole("button", { name: "Record decision" }).click();
  await page.getByText("Decision recorded").waitFor();
  await callbackDelivered(leadId);
  expect(callbacks.find((body) => body.lead_id === leadId)).toMatchObject({
    status: "rejected",
    message: [{ error: "Rejected by operator: failed the fraud check" }],
  });
  await page.reload();
  await page.locator("ol.timeline").getByText("Rejected by operator: failed the fraud check").first().waitFor();
  await screenshot(page, "console-decided-lead.png");

  await page.getByRole("navigation").getByRole("link", { name: "Vendors" }).click();
  // Disabling asks first: the vendor's name typed again, or nothing changes.
  await page.locator("tr", { hasText: VENDOR.name }).getByRole("link", { name: "Disable…" }).click();
  await page.getByText("Its requests get 401 from now on").waitFor();
  await page.getByLabel("Type the vendor's name to confirm").fill("another-vendor");
  await page.getByRole("main").getByRole("button", { name: "Disable" }).click();
  await page.getByText("The name typed is not the vendor's: nothing was changed.").waitFor();
  // The refusal is a 400, which the browser logs; nothing else is.
  expect(seen.errors.splice(0)).toEqual(["Failed to load resource: the server responded with a status of 400 (Bad Request)"]);
  expect((await vendorPost({})).status).toBe(200);
  await screenshot(page, "console-vendor-confirmation.png");
  await page.getByLabel("Type the vendor's name to confirm").fill(VENDOR.name);
  await page.getByRole("main").getByRole("button", { name: "Disable" }).click();
  await page.getByText("The vendor is disabled").waitFor();
  expect((await vendorPost({})).status).toBe(401);
  await page.locator("tr", { hasText: VENDOR.name }).getByRole("button", { name: "Enable" }).click();
  await page.getByText("The vendor is enabled again.").waitFor();
  expect((await vendorPost({})).status).toBe(200);

  expect(seen.dialogs).toEqual([]);
  expect(seen.errors).toEqual([]);
}, 240_000);

test("replay a dead callback from the Callbacks page and see it delivered; upload a CSV with one bad row and see its line number; sign-in and every page's screenshot", async () => {
  const page = await fixture.page();
  const seen = record(page);
  // A receiver of this test's own: 410 Gone (dead after one attempt) until it is told to take them.
  let answer = 410;
  const delivered: string[] = [];
  const failing = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: async (request) => {
      if (answer === 200) delivered.push(((await request.json()) as { lead_id: string }).lead_id);
      return new Response(null, { status: answer });
    },
  });
  try {
    const leadId = (await vendorPost({ call_back_url: `http://127.0.0.1:${failing.port}/cb` })).body.lead_id as string;
    await waitUntil(async () => (await fixture.store.read((t) => op(t.callbacks.find(leadId))))?.status === "dead", 15_000);
    answer = 200;

    await page.goto(`${fixture.consoleUrl}/callbacks`);
    const row = page.locator("tr", { hasText: leadId });
    await row.waitFor();
    await screenshot(page, "console-callbacks-dead.png");
    await page.getByRole("link", { name: /Replay every one of these dead callbacks/ }).click();
    await page.getByRole("button", { name: /^Replay \d+ callbacks?$/ }).waitFor();
    await screenshot(page, "console-callbacks-replay-confirm.png");
    await page.getByRole("link", { name: "Cancel" }).click();
    await row.getByRole("button", { name: "Replay" }).click();
    await page.getByText("The callback is queued again").waitFor();
    await waitUntil(async () => delivered.includes(leadId), 15_000);
    await callbackDelivered(leadId);
  } finally {
    await failing.stop(true);
  }

  const importCsv = async (csv: string) => {
    await page.getByLabel("CSV file").setInputFiles({ name: "do-not-call.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Import" }).click();
  };
  await page.goto(`${fixture.consoleUrl}/suppression`);
  await importCsv("phone,reason\n(212) 555-0181,asked\n555-01,typo\n(212) 555-0182,asked\n");
  await page.getByText("Nothing was imported: do-not-call.csv has 1 malformed row.").waitFor();
  expect(await page.locator("table.problems tbody tr").allInnerTexts()).toEqual([expect.stringMatching(/^3\s+not a valid US phone number: "555-01"$/)]);
  await screenshot(page, "console-suppression-import-problems.png");
  await page.getByRole("link", { name: "Back to Suppression" }).click();
  await importCsv("phone,reason\n(212) 555-0181,asked\n(212) 555-0182,asked\n");
  await page.getByText("Imported do-not-call.csv: 2 rows, 2 added, 0 already listed.").waitFor();
  await screenshot(page, "console-suppression-imported.png");
  await page.goto(`${fixture.consoleUrl}/suppression?phone=2125550181`);
  await page.getByText(/^\+12125550181 is on the suppression list \(since .+ UTC, reason: asked\)\.$/).waitFor();
  await screenshot(page, "console-suppression-check.png");
  await page.goto(`${fixture.consoleUrl}/audit`);
  await page.getByText("suppression.import").waitFor();
  await screenshot(page, "console-audit-after.png");

  await page.getByRole("button", { name: "Sign out" }).click();
  await page.getByLabel("Operator").waitFor();
  await screenshot(page, "console-sign-in.png");
  await fixture.signInToConsole(page);

  expect(seen.dialogs).toEqual([]);
  expect(seen.errors).toEqual([]);
}, 240_000);

test("the Policy page: an invalid edit is refused with its problem by path; a valid one is in force for postLead; an entry disabled by its button", async () => {
  const page = await fixture.page();
  const seen = record(page);
  await openSignedIn(page, "/overview");
  await page.getByRole("navigation").getByRole("link", { name: "Policy" }).click();
  await page.getByRole("heading", { name: "Policy" }).waitFor();
  await screenshot(page, "console-policy.png");

  // Scoped to a campaign of this test's own, so the other tests' leads are not judged by it.
  const rule = {
    name: "browser-states",
    campaigns: ["browser-policy"],
    require: { field: "state", op: "in", value: ["NY"] },
    reason: "State not served: {state}",
  };
  const cap = { name: "browser-cap", campaigns: ["browser-policy"], counts: "leads", max: 5, per: "day", time_zone: "America/New_York" };
  // How many of this test's leads the rule refused: the page's count of them since 00:00 UTC.
  let refusedByRule = 0;
  const texas = async () => {
    const answer = await vendorPost({ vendor_campaign_name: "browser-policy", state: "TX" });
    if (answer.status === 422 && JSON.stringify(answer.body).includes("State not served")) refusedByRule++;
    return answer;
  };
  const editor = page.getByLabel("Policy document (JSON)");
  const save = () => page.getByRole("button", { name: "Save the policy" }).click();
  await editor.fill(JSON.stringify({ rules: [{ ...rule, require: { ...rule.require, op: "among" } }] }, null, 2));
  await save();
  await page.getByText("Nothing changed: the document has 1 problem, each named by its path below.").waitFor();
  expect(await page.locator("#problems tbody tr").allInnerTexts()).toEqual([expect.stringMatching(/^\/rules\/0\/require\/op\s+\S/)]);
  // The refusal is a 422, which the browser logs; nothing else is.
  expect(seen.errors.splice(0)).toEqual([expect.stringContaining("the server responded with a status of 422")]);
  await screenshot(page, "console-policy-invalid.png");
  expect((await texas()).status).toBe(200);

  await editor.fill(JSON.stringify({ rules: [rule], caps: [cap] }, null, 2));
  await save();
  await page.getByText("The policy is saved and in force").waitFor();
  await page.locator("#document").getByText('"browser-states"').waitFor();
  expect(await page.locator("#in-force").innerText()).toContain(`changed by operator:${OPERATOR.name}`);
  await waitUntil(async () => (await texas()).status === 422, 2_000, 50);
  expect((await texas()).body.message).toEqual([{ error: "State not served: TX" }]);
  await screenshot(page, "console-policy-saved.png");

  await page.locator("#entries tr", { hasText: "browser-states" }).getByRole("button", { name: "Disable" }).click();
  await page.getByText("The entry is disabled").waitFor();
  await waitUntil(async () => (await texas()).status === 200, 2_000, 50);
  await screenshot(page, "console-policy-disabled.png");

  // The last lead, accepted once the rule was disabled, took the cap's one slot; the rule's refusals
  // are on the page once the refusal log (written just after each answer) holds them.
  await waitUntil(
    async () => {
      await page.reload();
      const cells = await page.locator("#entries tr", { hasText: "browser-states" }).locator("td").allInnerTexts();
      return cells[4] === String(refusedByRule);
    },
    5_000,
    100,
  );
  expect(refusedByRule).toBeGreaterThan(0);
  expect(await page.locator("#cap-use tbody tr").allInnerTexts()).toEqual([
    expect.stringMatching(/^browser-cap\s+all in scope\s+1 \/ 5\s+\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\s+a day in America\/New_York$/),
  ]);
  await screenshot(page, "console-policy-use.png");

  expect(seen.dialogs).toEqual([]);
  expect(seen.errors).toEqual([]);
  expect(seen.urls.filter((url) => new URL(url).origin !== fixture.consoleUrl)).toEqual([]);
}, 240_000);

/** How many pixels of a canvas are painted (not transparent): a drawn chart has its lines and axes. */
function paintedPixels(canvas: any): number {
  const { data } = canvas.getContext("2d").getImageData(0, 0, canvas.width, canvas.height);
  let painted = 0;
  for (let i = 3; i < data.length; i += 4) if (data[i] !== 0) painted++;
  return painted;
}

test("the Overview draws its charts with data in them, and refreshes them in place", async () => {
  // Leads of two outcomes (accepted through the hold to its callback, and a 400), counted within the flush interval (5 s).
  await postLead({});
  expect((await vendorPost({ phone_number: "555" })).status).toBe(400);
  const page = await fixture.page();
  const seen = record(page);
  await openSignedIn(page, "/overview");
  const overview = page.locator("#overview");
  const invalidCell = page.locator('[data-cell="total:invalid"]');
  await waitUntil(async () => {
    await page.goto(`${fixture.consoleUrl}/overview`);
    await overview.and(page.locator("[data-drawn]")).waitFor();
    return Number(await invalidCell.innerText()) > 0;
  }, 30_000);

  const charts = page.locator("#overview .chart");
  expect(await charts.count()).toBe(5);
  for (const chart of await charts.all()) expect(await chart.locator("canvas").evaluate(paintedPixels)).toBeGreaterThan(500);
  // The legend, with no cursor on the chart, shows each series' total over the window.
  const legendOf = (chart: string) => page.locator(`[data-chart="${chart}"] .u-legend .u-series:not(:first-child)`);
  const total = async (chart: string, label: string) => Number(await legendOf(chart).filter({ hasText: label }).locator(".u-value").innerText());
  expect(await total("outcomes", "Accepted (200)")).toBeGreaterThan(0);
  expect(await total("outcomes", "Invalid (400)")).toBeGreaterThan(0);
  expect(await total("callbacks", "Delivered")).toBeGreaterThan(0);
  expect(await total("vendors", VENDOR.name)).toBeGreaterThan(0);
  expect(await legendOf("decisionSeconds").locator(".u-value").innerText()).toMatch(/^\d+(\.\d)? s$/);
  await screenshot(page, "console-overview.png");

  // Another 400: the page shows it within a flush and a refresh, without being loaded again.
  const before = Number(await invalidCell.innerText());
  const loads: string[] = [];
  page.on("framenavigated", (frame) => loads.push(frame.url()));
  expect((await vendorPost({ phone_number: "555" })).status).toBe(400);
  await waitUntil(async () => Number(await invalidCell.innerText()) > before, 30_000, 250);
  expect(await total("outcomes", "Invalid (400)")).toBe(before + 1);
  expect(loads).toEqual([]);

  expect(seen.dialogs).toEqual([]);
  expect(seen.errors).toEqual([]);
  expect(seen.urls.filter((url) => new URL(url).origin !== fixture.consoleUrl)).toEqual([]);
}, 240_000);

test("a test lead's whole life (X-Test-Lead): its callback says test: true; Leads marks it and finds it with Leads: test, and not with real", async () => {
  const campaign = "browser-test-mode";
  const answer = await post(
    `${fixture.url}/v1/postLead`,
    validLead({ call_back_url: `http://127.0.0.1:${receiver.port}/cb`, vendor_campaign_name: campaign }),
    {
      authorization: basicAuth(VENDOR.name, VENDOR.password),
      "x-test-lead": "true",
    },
  );
  expect(answer.status).toBe(200);
  const leadId = answer.body.lead_id as string;
  await callbackDelivered(leadId);
  expect(callbacks.find((body) => body.lead_id === leadId)).toMatchObject({ status: "accepted", test: true });

  const page = await fixture.page();
  await openSignedIn(page, "/leads");
  const traffic = page.locator('select[name="traffic"]');
  await page.getByLabel("Campaign").fill(campaign);
  await traffic.selectOption("test");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByRole("link", { name: leadId }).waitFor();
  expect(await page.locator("tbody tr").allInnerTexts()).toEqual([expect.stringMatching(/accepted test/)]);
  await screenshot(page, "console-leads-test.png");
  await traffic.selectOption("real");
  await page.getByRole("button", { name: "Search" }).click();
  await page.getByText("No leads match.").waitFor();
});
