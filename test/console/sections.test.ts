// The Vendors and Suppression pages against the real server: what an operator changes there is in
// force for vendors at once, and written to the audit log, which the Audit log page shows.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { basicAuth, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
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

  const disabled = await operator.post("/vendors/console-co/disable", { csrf: operator.csrf });
  expect([disabled.status, disabled.headers.get("location")]).toEqual([303, "/vendors?done=disabled"]);
  expect((await prePing(server, basicAuth("console-co", password))).status).toBe(401);
  await operator.post("/vendors/console-co/enable", { csrf: operator.csrf });
  expect((await prePing(server, basicAuth("console-co", password))).status).toBe(200);

  const rotated = await operator.post("/vendors/console-co/rotate-password", { csrf: operator.csrf });
  const newPassword = shown(rotated.text, "Password")!;
  expect((await prePing(server, basicAuth("console-co", newPassword))).status).toBe(200);
  expect((await prePing(server, basicAuth("console-co", password))).status).toBe(401);

  const taken = await operator.post("/vendors/add", { csrf: operator.csrf, name: "console-co" });
  expect([taken.status, taken.text]).toEqual([409, expect.stringContaining("Vendor already exists: console-co")]);
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
  for (const path of ["/overview", "/leads", "/callbacks", "/vendors", "/suppression", "/audit"]) {
    expect(nav).toContain(`href="${path}"`);
    expect([path, (await operator.get(path)).status]).toEqual([path, 200]);
  }
});
