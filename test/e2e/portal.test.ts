// The vendor portal end to end (docs/portal.md): sign-in with API credentials and with a one-time
// link, its session cookie and CSRF, the pages and actions on the vendor's own data, and a test
// callback to the mock receiver. On SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { setVendorEnabled } from "../../src/auth/vendors.ts";
import { createSignInLink } from "../../src/portal-access/sessions.ts";
import { getPage, postForm } from "../console/console-client.ts";
import { cli } from "../helpers/cli.ts";
import { postLead } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { addPortalVendor, portalSignIn, sessionFrom, startPortalTestServer } from "../helpers/portal-client.ts";
import { basicAuth, VENDOR, type ApiTestServer } from "../helpers/server.ts";
import { exchange, rawRequest } from "../helpers/raw-http.ts";
import { postFormTrusted, withTlsTestServer } from "../helpers/tls-server.ts";
import { waitUntil } from "../helpers/wait.ts";

const ACME = { name: "acme", password: "acme-password-1" };
let server: ApiTestServer;
let receiver: MockReceiver;

beforeAll(async () => {
  server = await startPortalTestServer({ trustedProxies: ["127.0.0.1"], publicUrl: "https://leads.example.test" });
  receiver = startMockReceiver({ secret: await addPortalVendor(server, ACME) });
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

const callbackStatus = async (leadId: string) =>
  ((await server.store.read((t) => op(t.callbacks.detailOf(leadId))))?.callback as { status?: string } | undefined)?.status;

test("signing in with the API credentials opens an HttpOnly, SameSite=Strict session scoped to /portal", async () => {
  const answer = await postForm(`${server.url}/portal/login`, ACME);
  expect(answer.status).toBe(303);
  expect(answer.headers.get("location")).toBe("/portal/overview");
  expect(answer.headers.get("set-cookie")).toMatch(/^lead_ingress_portal=[^;]+; Path=\/portal; Max-Age=43200; HttpOnly; SameSite=Strict$/);
  const page = await getPage(`${server.url}/portal/overview`, { cookie: answer.headers.get("set-cookie")!.split(";")[0]! });
  expect(page.status).toBe(200);
  expect(page.headers.get("content-security-policy")).toContain("default-src 'self'");
  expect(page.text).not.toContain("<script");
  expect(page.text).toContain("acme");
});

test("a wrong password is 401 without saying which part; without a session a page sends the browser to sign in", async () => {
  const wrong = await postForm(`${server.url}/portal/login`, { name: ACME.name, password: "nope-nope-nope" });
  expect(wrong.status).toBe(401);
  expect(wrong.text).toContain("Wrong vendor name or password.");
  expect(wrong.headers.get("set-cookie")).toBeNull();
  const page = await getPage(`${server.url}/portal/leads`);
  expect(page.status).toBe(303);
  expect(page.headers.get("location")).toBe("/portal/login");
});

test("a change without the session's CSRF token, or from another site, is refused", async () => {
  const session = await portalSignIn(server.url, ACME);
  const noToken = await postForm(`${server.url}/portal/integration/rotate-secret`, {}, { cookie: session.cookie });
  expect(noToken.status).toBe(403);
  const otherSite = await postForm(
    `${server.url}/portal/integration/rotate-secret`,
    { csrf: session.csrf },
    { cookie: session.cookie, origin: "https://evil.example" },
  );
  expect(otherSite.status).toBe(403);
});

test("a sign-in link works once, and its GET alone does not use it", async () => {
  const link = await createSignInLink(server.store, ACME.name, "cli:test", 15 * 60_000);
  const token = new URL(link.path, server.url).searchParams.get("token")!;
  const shown = await getPage(`${server.url}${link.path}`);
  expect(shown.status).toBe(200);
  const session = await sessionFrom(server.url, await postForm(`${server.url}/portal/link`, { token }));
  expect((await session.get("/portal/overview")).status).toBe(200);
  const again = await postForm(`${server.url}/portal/link`, { token });
  expect(again.status).toBe(401);
  const audit = await server.rows("SELECT action, actor, detail FROM audit_log WHERE subject = $1 AND action LIKE 'portal.%' ORDER BY id", ACME.name);
  expect(audit.map((row) => row.action)).toContain("portal.link");
  expect(audit).toContainEqual({ action: "portal.sign-in", actor: "vendor:acme", detail: "by link" });
});

test("an expired link signs no one in", async () => {
  const link = await createSignInLink(server.store, ACME.name, "cli:test", 60_000, Date.now() - 120_000);
  const token = new URL(link.path, server.url).searchParams.get("token")!;
  expect((await postForm(`${server.url}/portal/link`, { token })).status).toBe(401);
});

test("a failed callback is found on the Callbacks page, resent, and delivered", async () => {
  const session = await portalSignIn(server.url, ACME);
  const path = "/portal-failing";
  receiver.setBehaviour({ path, status: 500, failFirst: 2 });
  const answer = await postLead(server, basicAuth(ACME.name, ACME.password), validLead({ call_back_url: `${receiver.url.origin}${path}` }));
  const leadId = answer.body.lead_id as string;
  await waitUntil(async () => (await callbackStatus(leadId)) === "dead");
  const callbacks = await session.get("/portal/callbacks");
  expect(callbacks.text).toContain(leadId);
  const lead = await session.get(`/portal/leads/${leadId}`);
  expect(lead.text).toContain("HTTP 500");
  const resent = await session.post("/portal/callbacks/resend", { lead: leadId });
  expect(resent.status).toBe(303);
  await waitUntil(async () => (await callbackStatus(leadId)) === "delivered");
});

test("every dead callback since a day: counted, then resent", async () => {
  const session = await portalSignIn(server.url, ACME);
  const path = "/portal-dead-many";
  receiver.setBehaviour({ path, status: 500, failFirst: 4 });
  const ids: string[] = [];
  for (let i = 0; i < 2; i++)
    ids.push((await postLead(server, basicAuth(ACME.name, ACME.password), validLead({ call_back_url: `${receiver.url.origin}${path}` }))).body.lead_id);
  for (const id of ids) await waitUntil(async () => (await callbackStatus(id)) === "dead");
  const day = new Date().toISOString().slice(0, 10);
  const confirm = await session.get(`/portal/callbacks/resend-failed?since=${day}`);
  expect(confirm.text).toMatch(/id="resend-count">\d+ dead callbacks/);
  expect((await session.post("/portal/callbacks/resend-failed", { since: day })).status).toBe(303);
  for (const id of ids) await waitUntil(async () => (await callbackStatus(id)) === "delivered");
});

test("a test callback reaches the mock receiver, signed, and the page shows its answer", async () => {
  const session = await portalSignIn(server.url, ACME);
  const path = "/portal-test";
  const page = await session.post("/portal/integration/test-callback", { url: `${receiver.url.origin}${path}` });
  expect(page.status).toBe(200);
  expect(page.text).toContain("Delivered:");
  const [received] = await receiver.waitFor(1, { path });
  expect(received!.signature).toEqual({ valid: true });
  expect(received!.json).toMatchObject({ test: true, status: "accepted" });
});

test("rotating the signing secret shows the new one once and when the old one stops", async () => {
  const session = await portalSignIn(server.url, ACME);
  const page = await session.post("/portal/integration/rotate-secret", {});
  expect(page.status).toBe(200);
  const secret = /class="mono secret">(whsec_[^<]+)</.exec(page.text)?.[1];
  expect(secret).toBeDefined();
  expect((await server.store.read((t) => op(t.vendors.findByName(ACME.name))))!.signingSecret).toBe(secret!);
  expect(page.text).toContain("every callback carries two signatures");
  expect((await session.get("/portal/integration")).text).not.toContain(secret!);
});

test("a refused postLead is on the Refused requests page with its reason", async () => {
  const session = await portalSignIn(server.url, ACME);
  const refused = await postLead(server, basicAuth(ACME.name, ACME.password), validLead({ state: "ZZ" }));
  expect(refused.status).toBe(400);
  await waitUntil(async () => (await session.get("/portal/refusals")).text.includes("Invalid State Code"), 5_000, 100);
});

test("guesses from one address lock that address out, never the vendor signing in from another with its password", async () => {
  const from = (address: string) => ({ "x-forwarded-for": address });
  let last = 0;
  for (let i = 0; i < 8; i++)
    last = (await postForm(`${server.url}/portal/login`, { name: ACME.name, password: `guess-${i}-guess` }, from("203.0.113.7"))).status;
  expect(last).toBe(429);
  const guessed = await postForm(`${server.url}/portal/login`, ACME, from("203.0.113.7"));
  expect(guessed.status).toBe(429);
  expect(guessed.headers.get("retry-after")).toMatch(/^\d+$/);
  const owner = await postForm(`${server.url}/portal/login`, ACME, from("198.51.100.9"));
  expect(owner.status).toBe(303);
});

test("vendors portal-link prints a one-time link on the public URL, valid for 15 minutes, that signs the vendor in", async () => {
  const run = await cli(server.config.databasePath, "vendors", "portal-link", ACME.name, "--public-url", "https://leads.example.test");
  expect(run.err).toBe("");
  expect(run.code).toBe(0);
  const link = /sign-in link:\s+(\S+)/.exec(run.out)![1]!;
  expect(link).toMatch(/^https:\/\/leads\.example\.test\/portal\/link\?token=[A-Za-z0-9_-]{43}$/);
  const until = Date.parse(/valid until:\s+(\S+)/.exec(run.out)![1]!);
  expect(until - Date.now()).toBeGreaterThan(14 * 60_000);
  expect(until - Date.now()).toBeLessThanOrEqual(15 * 60_000);
  const token = new URL(link).searchParams.get("token")!;
  expect((await postForm(`${server.url}/portal/link`, { token })).status).toBe(303);
  expect((await cli(server.config.databasePath, "vendors", "portal-link", "nobody")).code).not.toBe(0);
});

test("the integration page names the endpoints at the public URL", async () => {
  const session = await portalSignIn(server.url, ACME);
  const page = await session.get("/portal/integration");
  expect(page.text).toContain("https://leads.example.test/v1/postLead");
  expect(page.text).toMatch(/id="secret-status">(one secret signs|rotated: old and new both sign until)/);
});

test("disabling a vendor ends its portal sessions at once, and its links and password sign in no more", async () => {
  const other = { name: "disabled-soon", password: "disabled-soon-password" };
  await addPortalVendor(server, other);
  const session = await portalSignIn(server.url, other);
  const link = await createSignInLink(server.store, other.name, "cli:test", 15 * 60_000);
  await setVendorEnabled(server.store, other.name, false, "cli:test");
  expect((await session.get("/portal/overview")).status).toBe(303);
  expect((await postForm(`${server.url}/portal/link`, { token: new URL(link.path, server.url).searchParams.get("token")! })).status).toBe(401);
  expect((await postForm(`${server.url}/portal/login`, other)).status).toBe(401);
});

test("under TLS the portal's session cookie is Secure", () =>
  withTlsTestServer({}, async (own) => {
    expect(own.url).toStartWith("https://");
    const answer = await postFormTrusted(`${own.url}/portal/login`, VENDOR);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("set-cookie")).toEndWith("; Path=/portal; Max-Age=43200; HttpOnly; SameSite=Strict; Secure");
  }));

test("a target that resolves out of /portal is not found there", async () => {
  const session = await portalSignIn(server.url, ACME);
  const port = Number(new URL(server.url).port);
  const answer = await exchange(port, rawRequest("GET /portal/../overview HTTP/1.1", ["Host: 127.0.0.1", `Cookie: ${session.cookie}`]));
  expect(answer.status).toBe(404);
  expect(answer.body).not.toContain("Overview");
});
