// The vendor portal in a real browser (Debian's Chromium, playwright-core): a vendor signs in with
// its API credentials, finds a failed callback and resends it and sees it delivered, resends every
// dead one since today after seeing how many, sends a test
// callback to the mock receiver and sees its answer, finds a refused request with its reason; then
// a sign-in link signs it in. No page runs or loads a script, and every request stays on the API's
// origin. Screenshots: $PORTAL_SCREENSHOTS or artifacts/portal-*.png.
//
// Not part of `bun test` (see swagger.browser.ts): `bun run test:browser`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { createSignInLink } from "../../src/portal-access/sessions.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { validLead } from "../helpers/leads.ts";
import { basicAuth, post } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { ARTIFACTS, record, screenshotInto } from "./chromium.ts";
import { type BrowserFixture, startBrowserFixture } from "./fixture.ts";

const SCREENSHOTS = Bun.env.PORTAL_SCREENSHOTS ?? ARTIFACTS;
const VENDOR = { name: "portal-vendor", password: "portal-password-1" };

let fixture: BrowserFixture;
let receiver: MockReceiver;

beforeAll(async () => {
  receiver = startMockReceiver({});
  fixture = await startBrowserFixture({
    vendor: VENDOR,
    serverArgs: ["--hold-period", "100ms", "--allow-private-callbacks", "--worker-poll-interval", "50ms", "--callback-retry-schedule", "50ms"],
  });
});

afterAll(async () => {
  await fixture?.cleanup();
  await receiver?.stop();
});

const vendorPost = (fields: Record<string, unknown>) =>
  post(`${fixture.url}/v1/postLead`, validLead(fields), { authorization: basicAuth(VENDOR.name, VENDOR.password) });
const callbackStatus = async (leadId: string) => (await fixture.store.read((t) => op(t.callbacks.find(leadId))))?.status;

const screenshot = (page: Page, name: string) => screenshotInto(SCREENSHOTS, page, name);

test("sign in; a failed callback found, resent and delivered; a test callback; a refused request with its reason", async () => {
  const page = await fixture.page();
  const seen = record(page);

  await page.goto(`${fixture.url}/portal/leads`);
  expect(new URL(page.url()).pathname).toBe("/portal/login");
  await screenshot(page, "portal-sign-in.png");
  await fixture.signInToPortal(page);

  // A callback whose receiver fails both attempts: dead.
  receiver.setBehaviour({ path: "/failing", status: 500, failFirst: 2 });
  const leadId = (await vendorPost({ call_back_url: `${receiver.url.origin}/failing` })).body.lead_id as string;
  await waitUntil(async () => (await callbackStatus(leadId)) === "dead", 15_000);
  await page.goto(`${fixture.url}/portal/overview`);
  await page.waitForSelector("#callback-counts");
  await screenshot(page, "portal-overview.png");

  await page.click('nav a:has-text("Callbacks")');
  const row = page.locator("#callbacks-dead tr", { hasText: leadId });
  await expect(row.count()).resolves.toBe(1);
  await screenshot(page, "portal-callbacks-dead.png");
  await row.locator('button:has-text("Resend")').click();
  await page.waitForSelector('p.notice:has-text("queued")');
  await waitUntil(async () => (await callbackStatus(leadId)) === "delivered", 15_000);
  await page.goto(`${fixture.url}/portal/leads/${leadId}`);
  await expect(page.locator("#callback .status-delivered").count()).resolves.toBe(1);
  await expect(page.locator("#attempts tbody tr").count()).resolves.toBe(3);
  await screenshot(page, "portal-lead-delivered.png");

  // Every dead callback since today: counted first, then resent, and delivered.
  receiver.setBehaviour({ path: "/failing-many", status: 503, failFirst: 4 });
  const many: string[] = [];
  for (let i = 0; i < 2; i++) many.push((await vendorPost({ call_back_url: `${receiver.url.origin}/failing-many` })).body.lead_id as string);
  for (const id of many) await waitUntil(async () => (await callbackStatus(id)) === "dead", 15_000);
  await page.click('nav a:has-text("Callbacks")');
  await page.fill('input[name="since"]', new Date().toISOString().slice(0, 10));
  await page.click('button:has-text("Count them")');
  await expect(page.locator("#resend-count").textContent()).resolves.toStartWith("2 dead callbacks");
  await screenshot(page, "portal-resend-failed.png");
  await page.click('button:has-text("Resend 2")');
  await page.waitForSelector('p.notice:has-text("queued again")');
  for (const id of many) await waitUntil(async () => (await callbackStatus(id)) === "delivered", 15_000);

  // A test callback to the mock receiver: its answer on the page.
  await page.click('nav a:has-text("Integration")');
  await page.fill('input[name="url"]', `${receiver.url.origin}/test-callback`);
  await page.click('button:has-text("Send")');
  await page.waitForSelector('#test-result p.notice:has-text("Delivered")');
  const [received] = await receiver.waitFor(1, { path: "/test-callback" });
  expect(received!.json).toMatchObject({ test: true });
  await screenshot(page, "portal-test-callback.png");

  // A refused request and its reason.
  expect((await vendorPost({ state: "ZZ" })).status).toBe(400);
  await waitUntil(async () => {
    await page.goto(`${fixture.url}/portal/refusals`);
    return (await page.locator("#refusals", { hasText: "Invalid State Code" }).count()) === 1;
  }, 10_000);
  await screenshot(page, "portal-refusals.png");

  // The caps and schedules that apply to it, with the use now (the policy is in force within a second).
  const policy = {
    caps: [{ name: "daily-per-vendor", counts: "leads", max: 500, per: "day", each: "vendor", time_zone: "America/New_York" }],
    schedules: [
      {
        name: "call-center",
        time_zone: "America/Chicago",
        open: { mon: "00:00-23:59", tue: "00:00-23:59", wed: "00:00-23:59", thu: "00:00-23:59", fri: "00:00-23:59", sat: "00:00-23:59", sun: "00:00-23:59" },
      },
    ],
  };
  expect((await importPolicy(fixture.store, JSON.stringify(policy), "cli:browser-test")).kind).toBe("imported");
  await waitUntil(async () => {
    await page.goto(`${fixture.url}/portal/caps`);
    return (await page.locator("#caps", { hasText: "daily-per-vendor" }).count()) === 1;
  }, 10_000);
  await screenshot(page, "portal-caps.png");
  await page.goto(`${fixture.url}/portal/leads`);
  await screenshot(page, "portal-leads.png");
  expect(seen.errors).toEqual([]);
  expect(seen.urls.every((url) => url.startsWith(fixture.url))).toBe(true);
  expect(seen.urls.some((url) => url.endsWith(".js") || url.endsWith(".mjs"))).toBe(false);

  await page.click('header button:has-text("Sign out")');
  await page.waitForURL(`${fixture.url}/portal/login`);
});

test("a sign-in link signs the vendor in once", async () => {
  const link = await createSignInLink(fixture.store, VENDOR.name, "cli:browser-test", 15 * 60_000);
  const page = await fixture.newPage();
  await page.goto(`${fixture.url}${link.path}`);
  await screenshot(page, "portal-link.png");
  await page.click('button:has-text("Sign in")');
  await page.waitForURL(`${fixture.url}/portal/overview`);
  await page.click('header button:has-text("Sign out")');
  await page.goto(`${fixture.url}${link.path}`);
  await page.click('button:has-text("Sign in")');
  await page.waitForSelector('p.problem:has-text("used already")');
  await page.close();
});
