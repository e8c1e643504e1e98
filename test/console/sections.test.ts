// The Vendors and Suppression pages against the real server: what an operator changes there is in
// force for vendors at once, and written to the audit log, which the Audit log page shows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { basicAuth, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { op } from "../../src/db/script.ts";
import { prePing } from "../helpers/api.ts";
import { addOperator, OPERATOR, signIn, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let operator: SignedIn;

beforeAll(async () => {
  server = await startApiTestServer({ consolePort: 0 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
});
afterAll(() => server.stop());

/** A secret on the page that showed it once: the <dd> after its <dt>. */
const shown = (page: string, name: string) => new RegExp(`<dt>${name}</dt><dd>([^<]+)</dd>`).exec(page)?.[1];

test("Vendors: add shows the password and signing secret once; disable locks the vendor out at once; enable and a new password", async () => {
  const added = await operator.post("/vendors/add", { csrf: operator.csrf, name: "console-co" });
  expect(added.status).toBe(200);
  const password = shown(added.text, "Password")!;
  expect(shown(added.text, "Signing secret")).toStartWith("whsec_");
  expect((await prePing(server, basicAuth("console-co", password))).status).toBe(200);
  expect((await operator.get("/vendors")).text).not.toContain(password);

  const disabled = await operator.post("/vendors/console-co/disable", { csrf: operator.csrf, confirm: "console-co" });
  expect([disabled.status, disabled.headers.get("location")]).toEqual([303, "/vendors?done=disabled"]);
  expect((await prePing(server, basicAuth("console-co", password))).status).toBe(401);
  await operator.post("/vendors/console-co/enable", { csrf: operator.csrf });
  expect((await prePing(server, basicAuth("console-co", password))).status).toBe(200);

  const rotated = await operator.post("/vendors/console-co/rotate-password", { csrf: operator.csrf, confirm: "console-co" });
  const newPassword = shown(rotated.text, "Password")!;
  expect((await prePing(server, basicAuth("console-co", newPassword))).status).toBe(200);
  expect((await prePing(server, basicAuth("console-co", password))).status).toBe(401);

  const taken = await operator.post("/vendors/add", { csrf: operator.csrf, name: "console-co" });
  expect([taken.status, taken.text]).toEqual([409, expect.stringContaining("Vendor already exists: console-co")]);
});

test("Vendors: disable, new password and new signing secret each ask for the vendor's name first; one click changes nothing", async () => {
  const added = await operator.post("/vendors/add", { csrf: operator.csrf, name: "careful-co" });
  const password = shown(added.text, "Password")!;
  const secret = shown(added.text, "Signing secret")!;
  const list = (await operator.get("/vendors")).text;
  for (const action of ["disable", "rotate-password", "rotate-secret"]) {
    // The list links to a confirmation page: no form there changes the vendor.
    expect(list).toContain(`href="/vendors/careful-co/${action}"`);
    expect(list).not.toContain(`action="/vendors/careful-co/${action}"`);
    const confirmation = await operator.get(`/vendors/careful-co/${action}`);
    expect(confirmation.status).toBe(200);
    expect(confirmation.text).toContain(`<form method="post" action="/vendors/careful-co/${action}"`);
    expect(confirmation.text).toContain('<input name="confirm" required');
    // The button's POST alone, or with another name typed, changes nothing.
    const unconfirmed = await operator.post(`/vendors/careful-co/${action}`, { csrf: operator.csrf });
    expect([unconfirmed.status, unconfirmed.text]).toEqual([200, expect.stringContaining("Type the vendor's name to confirm")]);
    const mistyped = await operator.post(`/vendors/careful-co/${action}`, { csrf: operator.csrf, confirm: "careful" });
    expect([mistyped.status, mistyped.text]).toEqual([400, expect.stringContaining("The name typed is not the vendor&#39;s: nothing was changed.")]);
    // Without the session's CSRF token, even confirmed, it is refused.
    expect((await operator.post(`/vendors/careful-co/${action}`, { confirm: "careful-co" })).status).toBe(403);
  }
  expect((await prePing(server, basicAuth("careful-co", password))).status).toBe(200);
  const vendor = await server.store.read((t) => op(t.vendors.findByName("careful-co")));
  expect([vendor?.enabled, vendor?.signingSecret]).toEqual([true, secret]);
  expect((await operator.get("/audit?actor=olivia&action=vendor")).text).not.toMatch(
    /vendor\.(disable|rotate-password|rotate-secret)<\/td><td class="mono">careful-co/,
  );

  const confirmed = await operator.post("/vendors/careful-co/rotate-secret", { csrf: operator.csrf, confirm: "careful-co" });
  expect(shown(confirmed.text, "Signing secret")).toStartWith("whsec_");
  expect(shown(confirmed.text, "Signing secret")).not.toBe(secret);
  // The old secret signs beside the new one for the overlap (24 h by default): the page says until when, the list too.
  const until = shown(confirmed.text, "Old secret signs until")!;
  expect(until).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
  expect(confirmed.text).toContain(
    `Until ${until} every callback carries two signatures, the new secret&#39;s and the old one&#39;s; after that only the new one&#39;s.`,
  );
  const listed = (await operator.get("/vendors")).text;
  expect(listed).toContain(`<td data-signing-secret>rotated: old and new both sign until ${until}</td>`);
  expect(listed).toContain('<td>console-co</td>\n<td class="status-accepted">enabled</td>\n<td data-signing-secret>one secret signs</td>');
  expect(listed).not.toContain(shown(confirmed.text, "Signing secret")!);
  expect(listed).not.toContain(secret);
  expect((await operator.get("/vendors/no-such-co/disable")).status).toBe(404);
});

test("Suppression: check a number in any spelling, add it (vendors then get 422), remove it", async () => {
  const check = async (phone: string) => (await operator.get(`/suppression?phone=${encodeURIComponent(phone)}`)).text;
  expect(await check("(305) 555-0188")).toContain("+13055550188 is not on the suppression list.");
  const added = await operator.post("/suppression/add", { csrf: operator.csrf, phone: "305.555.0188", reason: "asked by phone" });
  expect([added.status, added.headers.get("location")]).toEqual([303, "/suppression?phone=%2B13055550188&done=added"]);
  expect(await check("+1 305 555 0188")).toMatch(/\+13055550188 is on the suppression list \(since \d{4}-\d\d-\d\d [\d:]+ UTC, reason: asked by phone\)\./);
  expect((await prePing(server, server.auth, { phone_number: "(305) 555-0188" })).status).toBe(422);

  await operator.post("/suppression/remove", { csrf: operator.csrf, phone: "3055550188" });
  expect(await check("3055550188")).toContain("is not on the suppression list.");
  expect((await prePing(server, server.auth, { phone_number: "(305) 555-0188" })).status).toBe(200);
  const bad = await operator.post("/suppression/add", { csrf: operator.csrf, phone: "555" });
  expect([bad.status, bad.text]).toEqual([400, expect.stringContaining("Not a valid US phone number")]);
});

test("the Audit log page lists the console's changes, newest first, with who made them", async () => {
  const page = await operator.get("/audit");
  expect(page.status).toBe(200);
  const actions = [...page.text.matchAll(/<td>operator:olivia<\/td><td class="mono">([\w.-]+)<\/td><td class="mono">([^<]+)<\/td>/g)].map(
    (match) => `${match[1]} ${match[2]}`,
  );
  expect(actions).toEqual(
    expect.arrayContaining([
      "suppression.remove +13055550188",
      "suppression.add +13055550188",
      "vendor.rotate-password console-co",
      "vendor.disable console-co",
      "vendor.add console-co",
      `console.sign-in ${OPERATOR.name}`,
    ]),
  );
  expect(actions.indexOf("suppression.remove +13055550188")).toBeLessThan(actions.indexOf("vendor.add console-co"));
});

test("every section is in the navigation and answers a signed-in operator", async () => {
  const nav = (await operator.get("/leads")).text;
  for (const path of ["/overview", "/leads", "/callbacks", "/vendors", "/suppression", "/policy", "/refusals", "/audit"]) {
    expect(nav).toContain(`href="${path}"`);
    expect([path, (await operator.get(path)).status]).toEqual([path, 200]);
  }
});

test("Vendors: a portal sign-in link, shown once on the API's address, signs the vendor in to its portal once; audited", async () => {
  await operator.post("/vendors/add", { csrf: operator.csrf, name: "portal-co" });
  expect((await operator.get("/vendors")).text).toContain('action="/vendors/portal-co/portal-link"');
  const made = await operator.post("/vendors/portal-co/portal-link", { csrf: operator.csrf });
  expect(made.status).toBe(200);
  const link = shown(made.text, "Sign-in link")!;
  expect(link).toStartWith(`${server.url}/portal/link?token=`);
  const token = new URL(link).searchParams.get("token")!;
  const post = () => fetch(`${server.url}/portal/link`, { method: "POST", body: new URLSearchParams({ token }), redirect: "manual" });
  expect((await post()).status).toBe(303);
  expect((await post()).status).toBe(401);
  expect((await operator.get("/audit")).text).toMatch(/portal\.link<\/td><td class="mono">portal-co/);
});
