// The API page in a real browser: Debian's Chromium driven by playwright-core opens /swagger,
// authorizes with Basic credentials, runs prePing from the page and sees the 200 answer; every
// request the page made went to the service itself (the page must work on an air-gapped VM). It
// reads what a vendor reads: the callback's signature formula whole, and postLead's Try it out
// with no Idempotency-Key filled in.
//
// Not part of `bun test`: bun discovers only *.test.* / *_test.* / *.spec.* / *_spec.* files, so
// this one runs only when named by path: `bun run test:browser` (bun test ./test/browser/...).
// Against the compiled binary: LEAD_INGRESS_TEST_BINARY=/path/to/lead-ingress bun run test:browser
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { ARTIFACTS, record } from "./chromium.ts";
import { type BrowserFixture, startBrowserFixture } from "./fixture.ts";

const VENDOR = { name: "browser-vendor", password: "browser-password-1" };
const PHONE = "(212) 555-0123";

let fixture: BrowserFixture;

beforeAll(async () => {
  fixture = await startBrowserFixture({ vendor: VENDOR, serverArgs: ["--worker", "false"], viewport: { width: 1280, height: 1000 } });
});

afterAll(() => fixture?.cleanup());

/** The page from `top` down to `bottom` into artifacts/`name`, not the whole long page. */
async function screenshot(page: Page, name: string, top: Locator, bottom: Locator) {
  const scrollY = Number(await page.evaluate("window.scrollY")); // a string: this project has no DOM types
  const [from, to] = [await top.boundingBox(), await bottom.boundingBox()];
  if (!from || !to) throw new Error("screenshot: element not visible");
  const y = from.y + scrollY;
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({
    path: join(ARTIFACTS, name),
    fullPage: true,
    clip: { x: 0, y, width: page.viewportSize()?.width ?? 1280, height: to.y + scrollY + to.height + 16 - y },
  });
}

/** A new tab on the API page with one operation of the Leads tag expanded. */
async function openOperation(operationId: string): Promise<{ page: Page; operation: Locator }> {
  const page = await fixture.newPage();
  await page.goto(`${fixture.url}/swagger`);
  const operation = page.locator(`#operations-Leads-${operationId}`);
  await operation.locator(".opblock-summary").click();
  return { page, operation };
}

test("authorize, run prePing from the API page, see the 200; every request stays on the service's origin", async () => {
  const page = await fixture.page();
  const seen = record(page);

  await page.goto(`${fixture.url}/swagger`);
  const prePing = page.locator("#operations-Leads-prePing");
  await prePing.waitFor();

  // Authorize: the Basic credentials of the bootstrap vendor.
  await page.locator(".scheme-container button.authorize").click();
  const modal = page.locator(".modal-ux");
  await modal.locator("#auth-basic-username").fill(VENDOR.name);
  await modal.locator("#auth-basic-password").fill(VENDOR.password);
  await modal.locator("button.authorize").click();
  await modal.getByText("Authorized", { exact: true }).waitFor();
  await modal.locator("button.btn-done").click();

  // prePing: expand, Try it out, a valid phone, Execute.
  await prePing.locator(".opblock-summary").click();
  await prePing.locator("button.try-out__btn").click();
  await prePing.locator("textarea.body-param__text").fill(JSON.stringify({ phone_number: PHONE }, null, 2));
  await prePing.locator("button.execute").click();

  // The live-response table appears once the service has answered.
  const answer = prePing.locator(".live-responses-table .response").first();
  await answer.waitFor();
  expect((await answer.locator(".response-col_status").innerText()).trim()).toBe("200");
  const body = JSON.parse(await answer.locator(".response-col_description .highlight-code pre").first().innerText());
  expect(body).toEqual({ can_post_phone_bit: true, message: "Phone number can be sent to postLead." });

  // From Authorize (now locked) down to the live answer.
  await screenshot(page, "swagger.png", page.locator(".scheme-container"), answer);

  // The page sent the credentials entered in Authorize.
  const call = seen.requests.find((request) => new URL(request.url).pathname === "/v1/prePing");
  expect(call?.authorization).toBe(`Basic ${btoa(`${VENDOR.name}:${VENDOR.password}`)}`);

  // Offline: the page, its assets, its document and the call all came from the service.
  const origin = new URL(fixture.url).origin;
  const paths = seen.requests.map((request) => new URL(request.url).pathname);
  expect(paths).toEqual(
    expect.arrayContaining(["/swagger", "/swagger/assets/swagger-ui-bundle.js", "/swagger/assets/swagger-ui.css", "/swagger/json", "/v1/prePing"]),
  );
  expect(seen.requests.filter((request) => new URL(request.url).origin !== origin).map((request) => request.url)).toEqual([]);
  expect(seen.errors).toEqual([]);
}, 90_000);

// The formula once lost its `<body>` to the HTML renderer: vendors computed wrong signatures.
test("postLead's callback shows the whole signature formula, <body> included", async () => {
  const { page, operation } = await openOperation("postLead");
  await operation.getByText("Callbacks", { exact: true }).click();
  const callback = operation.locator(".callbacks-container .opblock").first();
  await callback.locator(".opblock-summary").click();
  const description = callback.locator(".opblock-description-wrapper").first(); // then the request body's
  expect(await description.innerText()).toContain('webhook-signature = "v1," + base64(HMAC-SHA256(secret, "<webhook-id>.<webhook-timestamp>.<body>"))');
  await screenshot(page, "swagger-signature.png", callback.locator(".opblock-summary"), description);
  await page.close();
}, 60_000);

// With a pre-filled key every try from the page sends the same key: within 24 hours the next one
// replays an earlier request's answer or gets a 422.
test("Try it out on postLead leaves Idempotency-Key empty; the example is shown beside it", async () => {
  const { page, operation } = await openOperation("postLead");
  await operation.locator("button.try-out__btn").click();
  const key = operation.locator('tr[data-param-name="Idempotency-Key"]');
  expect(await key.locator("input").inputValue()).toBe("");
  expect(await key.innerText()).toContain("order-4711");
  await page.close();
}, 60_000);
