// The vendor portal in a real browser (Debian's Chromium, playwright-core), for what a vendor does
// with its signing secret and its test leads (docs/contract.md §12):
// - a test lead's whole life: posted with `X-Test-Lead: true`, shown marked as a test in the portal's
//   leads (found by the Leads selector "test", not by "real") and on its page, decided after the
//   short test hold (not the real one), and called back with `"test": true`, signed as any callback;
// - the signing secret rotated from the Integration page: during the overlap (a few seconds here) a
//   callback carries both signatures and the reference `standardwebhooks` package verifies it with
//   the old secret and with the new one; after it, with the new one only.
// Screenshots: $PORTAL_SCREENSHOTS or artifacts/portal-*.png.
//
// Not part of `bun test` (see swagger.browser.ts): `bun run test:browser`.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Page } from "playwright-core";
import { Webhook } from "standardwebhooks";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { basicAuth, post } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { ARTIFACTS, screenshotInto } from "./chromium.ts";
import { type BrowserFixture, startBrowserFixture } from "./fixture.ts";

const SCREENSHOTS = Bun.env.PORTAL_SCREENSHOTS ?? ARTIFACTS;
const VENDOR = { name: "portal-secrets-vendor", password: "portal-password-2" };
/** A real lead is decided within a moment; a test lead only after this (longer, so the two are told apart). */
const REAL_HOLD = "100ms";
const TEST_HOLD_MS = 2_000;
/** Long enough for a lead posted just after the rotation to be called back within it, on a loaded machine. */
const OVERLAP = "15 s";

let fixture: BrowserFixture;
let receiver: MockReceiver;
let page: Page;

beforeAll(async () => {
  receiver = startMockReceiver({});
  fixture = await startBrowserFixture({
    vendor: VENDOR,
    serverArgs: [
      "--hold-period",
      REAL_HOLD,
      "--test-hold-period",
      `${TEST_HOLD_MS}ms`,
      "--signing-secret-overlap",
      OVERLAP.replace(" ", ""),
      "--allow-private-callbacks",
      "--worker-poll-interval",
      "50ms",
    ],
  });
  page = await fixture.page();
  await page.goto(`${fixture.url}/portal/login`);
  await fixture.signInToPortal(page);
});

afterAll(async () => {
  await fixture?.cleanup();
  await receiver?.stop();
});

const screenshot = (name: string) => screenshotInto(SCREENSHOTS, page, name);
const vendorRecord = async () => (await fixture.store.read((t) => op(t.vendors.findByName(VENDOR.name))))!;

let paths = 0;
/** Posts a lead whose callback goes to a path of its own; its answer and that path. */
async function postLead(headers: Record<string, string> = {}) {
  const path = `/secrets/${++paths}`;
  const answer = await post(`${fixture.url}/v1/postLead`, validLead({ phone_number: uniquePhone(), call_back_url: `${receiver.url.origin}${path}` }), {
    authorization: basicAuth(VENDOR.name, VENDOR.password),
    ...headers,
  });
  expect(answer.status).toBe(200);
  return { leadId: answer.body.lead_id as string, headers: answer.headers, path };
}
const callbackAt = async (path: string) => (await receiver.waitFor(1, { path, timeoutMs: 15_000 }))[0]!;

/** Whether the standardwebhooks package accepts the callback under `secret`. */
function verifies(secret: string, callback: { body: string; headers: Record<string, string> }, signature = callback.headers["webhook-signature"]!) {
  try {
    new Webhook(secret).verify(callback.body, { ...callback.headers, "webhook-signature": signature });
    return true;
  } catch {
    return false;
  }
}

/** The portal's Leads searched with its real/test selector set to `traffic`: the lead ids listed. */
async function leadsListed(traffic: "" | "real" | "test"): Promise<string[]> {
  await page.goto(`${fixture.url}/portal/leads`);
  await page.selectOption('select[name="traffic"]', { value: traffic });
  await page.click('form.filters button:has-text("Search")');
  await page.waitForURL((url) => url.searchParams.get("traffic") === traffic);
  return page.locator("#leads tbody tr td:nth-child(2)").allTextContents();
}

test("a test lead's whole life seen from the portal: marked a test, decided after the test hold, called back with test: true", async () => {
  const real = await postLead();
  const testLead = await postLead({ "x-test-lead": "true" });
  expect(testLead.headers.get("x-test-lead")).toBe("true");
  expect(real.headers.get("x-test-lead")).toBeNull();

  // The leads list marks it; the selector finds it among tests and not among real leads.
  expect(await leadsListed("test")).toEqual([testLead.leadId]);
  await screenshot("portal-leads-test.png");
  expect(await leadsListed("real")).toEqual([real.leadId]);
  expect(await leadsListed("")).toEqual([testLead.leadId, real.leadId]);
  const row = page.locator("#leads tbody tr", { hasText: testLead.leadId });
  await expect(row.locator("strong", { hasText: "test" }).count()).resolves.toBe(1);
  await expect(page.locator("#leads tbody tr", { hasText: real.leadId }).locator("strong", { hasText: "test" }).count()).resolves.toBe(0);
  await screenshot("portal-leads-mixed.png");

  // Its callback after the test hold, saying so, signed as any.
  const callback = await callbackAt(testLead.path);
  expect(callback.json).toMatchObject({ lead_id: testLead.leadId, status: "accepted", test: true });
  expect(verifies((await vendorRecord()).signingSecret, callback)).toBe(true);
  expect((await callbackAt(real.path)).json).not.toHaveProperty("test");
  const [stored] = await fixture.rows("SELECT created_at, decided_at FROM leads WHERE id = $1", testLead.leadId);
  expect(Number(stored!.decided_at) - Number(stored!.created_at)).toBeGreaterThanOrEqual(TEST_HOLD_MS);

  // Its page: marked a test, accepted, its callback delivered.
  await page.click(`#leads a:has-text("${testLead.leadId}")`);
  await page.waitForURL(`${fixture.url}/portal/leads/${testLead.leadId}`);
  await expect(page.locator("#test-lead").textContent()).resolves.toContain("X-Test-Lead: true");
  await expect(page.locator("#outcome .status-accepted").textContent()).resolves.toBe("accepted (test)");
  await waitUntil(async () => {
    await page.reload();
    return (await page.locator("#callback .status-delivered").count()) === 1;
  }, 10_000);
  await screenshot("portal-lead-test.png");
  await page.goto(`${fixture.url}/portal/leads/${real.leadId}`);
  await expect(page.locator("#test-lead").count()).resolves.toBe(0);
});

test("the signing secret rotated from the Integration page: both secrets verify during the overlap, only the new one after", async () => {
  const oldSecret = (await vendorRecord()).signingSecret;
  await page.goto(`${fixture.url}/portal/integration`);
  await expect(page.locator("#secret-status").textContent()).resolves.toBe("one secret signs");
  await expect(page.locator("#secret-status + p").textContent()).resolves.toContain(`For ${OVERLAP} every callback carries both signatures`);
  await page.click('button:has-text("Rotate the signing secret")');
  const newSecret = (await page.locator("#new-secret .secret").textContent())!.trim();
  expect(newSecret).toStartWith("whsec_");
  expect(newSecret).not.toBe(oldSecret);
  const until = (await vendorRecord()).previousSecretUntil!;
  const posted = await postLead();
  await screenshot("portal-secret-rotated.png");
  await page.goto(`${fixture.url}/portal/integration`);
  await expect(page.locator("#secret-status").textContent()).resolves.toStartWith("rotated: old and new both sign until");
  await expect(page.locator("#new-secret").count()).resolves.toBe(0);
  await screenshot("portal-secret-overlap.png");

  // During the overlap: two signatures, the new secret's first; a receiver holding either accepts it.
  const during = await callbackAt(posted.path);
  expect(Number(during.headers["webhook-timestamp"]) * 1000).toBeLessThan(until);
  const signatures = during.headers["webhook-signature"]!.split(" ");
  expect(signatures).toHaveLength(2);
  const [first, second] = signatures;
  expect([verifies(newSecret, during, first), verifies(oldSecret, during, first)]).toEqual([true, false]);
  expect([verifies(oldSecret, during, second), verifies(newSecret, during, second)]).toEqual([true, false]);
  expect([verifies(newSecret, during), verifies(oldSecret, during)]).toEqual([true, true]);

  // After it: the new secret's signature alone.
  await Bun.sleep(Math.max(0, until - Date.now()));
  const after = await callbackAt((await postLead()).path);
  expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
  expect([verifies(newSecret, after), verifies(oldSecret, after)]).toEqual([true, false]);
  await page.reload();
  await expect(page.locator("#secret-status").textContent()).resolves.toBe("one secret signs");
  await screenshot("portal-secret-after-overlap.png");
});
