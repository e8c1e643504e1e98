// The console's security, against the real server: it is not on the vendors' listener; nothing
// answers without a session; changes need the session's CSRF token (and the console's origin);
// vendor credentials never open it; failed sign-ins are throttled; sessions end on sign-out, on
// expiry and when the operator is disabled.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { postFormTrusted, withTlsTestServer } from "../helpers/tls-server.ts";
import { setOperatorEnabled } from "../../src/console/operators.ts";
import { currentSession, SESSION_COOKIE } from "../../src/console/sessions.ts";
import { op } from "../../src/db/script.ts";
import { validLead } from "../helpers/leads.ts";
import { basicAuth, post, startApiTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";
import { addOperator, getPage, OPERATOR, postForm, signIn } from "./console-client.ts";

let server: ApiTestServer;
let consoleUrl: string;
let leadId: string;

beforeAll(async () => {
  server = await startApiTestServer({ consolePort: 0, holdPeriodMs: 3_600_000 });
  consoleUrl = server.consoleUrl!;
  await addOperator(server.store);
  leadId = (await post(`${server.url}/v1/postLead`, validLead(), { authorization: server.auth })).body.lead_id;
});
afterAll(() => server.stop());

const decisionOf = async (id: string) => (await server.store.read((t) => op(t.leads.operatorDecisionOf(id))))?.decision;
const PAGES = () => [
  "/",
  "/overview",
  "/leads",
  "/leads.csv",
  `/leads/${leadId}`,
  "/leads?phone=2125550100",
  "/callbacks",
  "/callbacks/replay?status=dead",
  "/vendors",
  "/suppression?phone=2125550100",
  "/policy",
  "/refusals",
  "/audit",
  "/no-such-page",
];
const CHANGES = () => [
  "/logout",
  `/leads/${leadId}/decide`,
  `/leads/${leadId}/retry`,
  `/leads/${leadId}/replay`,
  "/callbacks/replay",
  "/vendors/add",
  `/vendors/${VENDOR.name}/disable`,
  `/vendors/${VENDOR.name}/rotate-password`,
  "/suppression/add",
  "/policy",
  "/policy/entries",
];

describe("the console is not on the vendors' listener", () => {
  test("by default there is no console at all, and the vendors' port answers its paths 404 in the envelope", async () => {
    const plain = await startApiTestServer();
    try {
      expect(plain.consoleUrl).toBeNull();
      for (const path of ["/login", "/leads", "/assets/console.css"]) {
        const answer = await fetch(`${plain.url}${path}`);
        expect([path, answer.status, answer.headers.get("content-type")]).toEqual([path, 404, expect.stringContaining("application/json")]);
      }
    } finally {
      await plain.stop();
    }
  });

  test("with a console port, the vendors' port still does not serve it", async () => {
    expect(new URL(consoleUrl).port).not.toBe(new URL(server.url).port);
    expect((await fetch(`${server.url}/login`)).status).toBe(404);
    expect((await postForm(`${server.url}/login`, OPERATOR)).status).toBe(404);
  });
});

test("no console route answers without a session: pages redirect to sign-in, changes are refused", async () => {
  const forged = { cookie: `${SESSION_COOKIE}=${"A".repeat(43)}` };
  for (const headers of [{}, forged]) {
    for (const path of PAGES()) {
      const answer = await getPage(`${consoleUrl}${path}`, headers);
      expect([path, answer.status, answer.headers.get("location"), answer.text]).toEqual([path, 303, "/login", ""]);
    }
    for (const path of CHANGES()) {
      const answer = await postForm(`${consoleUrl}${path}`, { csrf: "guessed", decision: "reject", name: "intruder", phone: "2125550100" }, headers);
      expect([path, answer.status]).toEqual([path, 403]);
      expect(answer.text).not.toContain(leadId);
    }
  }
  expect(await decisionOf(leadId)).toBeNull();
  expect(await server.store.read((t) => op(t.vendors.findByName("intruder")))).toBeUndefined();
  expect(await server.store.read((t) => op(t.vendors.findByName(VENDOR.name)))).toMatchObject({ enabled: true });
  expect(await server.store.read((t) => op(t.suppressions.isListed("+12125550100")))).toBe(false);
  // The sign-in page and its stylesheet are all a stranger gets, with the CSP on both.
  for (const path of ["/login", "/assets/console.css"]) {
    const answer = await getPage(`${consoleUrl}${path}`);
    expect([path, answer.status, answer.headers.get("content-security-policy")]).toEqual([path, 200, expect.stringContaining("default-src 'self'")]);
  }
});

test("vendor credentials never open the console: not as Basic auth, not at the sign-in form", async () => {
  const basic = await getPage(`${consoleUrl}/leads`, { authorization: basicAuth(VENDOR.name, VENDOR.password) });
  expect([basic.status, basic.headers.get("location")]).toEqual([303, "/login"]);
  const form = await postForm(`${consoleUrl}/login`, { name: VENDOR.name, password: VENDOR.password });
  expect(form.status).toBe(401);
  expect(form.headers.get("set-cookie")).toBeNull();
  expect(form.text).toContain("Wrong name or password.");
});

test("a change without the session's CSRF token, with another's, or from another origin is refused; with it, it is done and audited", async () => {
  const operator = await signIn(consoleUrl);
  const other = await signIn(consoleUrl);
  const decide = (form: Record<string, string>, headers?: Record<string, string>) =>
    operator.post(`/leads/${leadId}/decide`, { decision: "reject", reason: "csrf check", ...form }, headers);
  expect((await decide({})).status).toBe(403);
  expect((await decide({ csrf: "" })).status).toBe(403);
  expect((await decide({ csrf: other.csrf })).status).toBe(403);
  expect((await decide({ csrf: operator.csrf }, { origin: "http://attacker.example" })).status).toBe(403);
  expect(await decisionOf(leadId)).toBeNull();

  const done = await decide({ csrf: operator.csrf }, { origin: consoleUrl });
  expect([done.status, done.headers.get("location")]).toEqual([303, `/leads/${leadId}`]);
  expect(await decisionOf(leadId)).toBe("reject");
  const audit = await server.store.read((t) => op(t.audit.list(10)));
  expect(audit).toContainEqual({
    at: expect.any(Number),
    actor: `operator:${OPERATOR.name}`,
    action: "lead.decide",
    subject: leadId,
    detail: "reject: csrf check",
  });
});

test("the session cookie is HttpOnly and SameSite=Strict (not Secure over plain HTTP); sign-out ends the session", async () => {
  const answer = await postForm(`${consoleUrl}/login`, OPERATOR);
  const cookie = answer.headers.get("set-cookie")!;
  expect(cookie).toMatch(new RegExp(`^${SESSION_COOKIE}=[\\w-]{43}; Path=/; Max-Age=43200; HttpOnly; SameSite=Strict$`));
  const operator = await signIn(consoleUrl);
  expect((await operator.get("/leads")).status).toBe(200);
  const out = await operator.post("/logout", { csrf: operator.csrf });
  expect([out.status, out.headers.get("location"), out.headers.get("set-cookie")]).toEqual([303, "/login", expect.stringContaining("Max-Age=0")]);
  expect((await operator.get("/leads")).status).toBe(303);
});

test("a session ends when it expires and when its operator is disabled", async () => {
  const operator = await signIn(consoleUrl);
  const request = new Request(consoleUrl, { headers: { cookie: operator.cookie } });
  const now = Date.now();
  expect(await currentSession(server.store, request, now)).toMatchObject({ operatorName: OPERATOR.name });
  expect(await currentSession(server.store, request, now + server.config.consoleSessionLifetimeMs + 1)).toBeNull();

  await setOperatorEnabled(server.store, OPERATOR.name, false, "cli:test");
  expect((await operator.get("/leads")).status).toBe(303);
  expect((await postForm(`${consoleUrl}/login`, OPERATOR)).status).toBe(401);
  await setOperatorEnabled(server.store, OPERATOR.name, true, "cli:test");
});

test("failed sign-ins are throttled: after five, even the right password gets 429 with Retry-After", async () => {
  // A server of its own: the budget of failed sign-ins is per client address, and every test here is 127.0.0.1.
  const own = await startApiTestServer({ consolePort: 0 });
  try {
    await addOperator(own.store);
    for (let i = 0; i < 5; i++) expect((await postForm(`${own.consoleUrl}/login`, { ...OPERATOR, password: `wrong-${i}` })).status).toBe(401);
    const right = await postForm(`${own.consoleUrl}/login`, OPERATOR);
    expect(right.status).toBe(429);
    expect(Number(right.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(right.headers.get("set-cookie")).toBeNull();
  } finally {
    await own.stop();
  }
});

test("another address's wrong passwords never lock an operator out: the right password from elsewhere signs in", async () => {
  // Behind a trusted proxy (the loopback), X-Forwarded-For names the client: two addresses.
  const own = await startApiTestServer({ consolePort: 0, trustedProxies: ["127.0.0.1"] });
  const from = (address: string, form: Record<string, string>) => postForm(`${own.consoleUrl}/login`, form, { "x-forwarded-for": address });
  try {
    await addOperator(own.store);
    for (let i = 0; i < 5; i++) expect((await from("192.0.2.10", { ...OPERATOR, password: `wrong-${i}` })).status).toBe(401);
    // The guesser's address is throttled, its right password included; the name is over its budget too.
    expect((await from("192.0.2.10", OPERATOR)).status).toBe(429);
    // The name past its budget is still checked: a wrong password from elsewhere is counted (429), the right one signs in.
    expect((await from("198.51.100.20", { ...OPERATOR, password: "wrong-again" })).status).toBe(429);
    const right = await from("198.51.100.30", OPERATOR);
    expect(right.status).toBe(303);
    expect(right.headers.get("set-cookie")).toStartWith("lead_ingress_console=");
  } finally {
    await own.stop();
  }
});

test("a flood of guesses for a name from addresses that failed lately gets 429, and never keeps the right password from a clean address out", async () => {
  const own = await startApiTestServer({ consolePort: 0, trustedProxies: ["127.0.0.1"] });
  const from = (address: string, form: Record<string, string>) => postForm(`${own.consoleUrl}/login`, form, { "x-forwarded-for": address });
  try {
    await addOperator(own.store);
    // Five addresses, one failure each: the name is past its budget, each address has failed lately.
    const guessers = ["192.0.2.1", "192.0.2.2", "192.0.2.3", "192.0.2.4", "192.0.2.5"];
    for (const address of guessers) expect((await from(address, { ...OPERATOR, password: "wrong" })).status).toBe(401);
    // Twenty guesses at once: checked two at a time per name in the suspect lane, or refused unchecked; 429 either way.
    const flood = guessers.flatMap((address) => Array.from({ length: 4 }, (_, i) => from(address, { ...OPERATOR, password: `guess-${i}` })));
    const right = from("198.51.100.40", OPERATOR);
    const statuses = (await Promise.all(flood)).map((answer) => answer.status);
    expect(statuses.every((status) => status === 429)).toBe(true);
    expect((await right).status).toBe(303);
  } finally {
    await own.stop();
  }
});

test("under TLS the console speaks HTTPS too, and its session cookie is Secure", () =>
  withTlsTestServer({ consolePort: 0 }, async (own) => {
    await addOperator(own.store);
    expect(own.consoleUrl).toStartWith("https://");
    const answer = await postFormTrusted(`${own.consoleUrl}/login`, OPERATOR);
    expect(answer.status).toBe(303);
    expect(answer.headers.get("set-cookie")).toEndWith("; HttpOnly; SameSite=Strict; Secure");
  }));

test("a form larger than 64 KiB is refused unread, even sent in chunks with no length (the listener takes uploads far larger)", async () => {
  const chunk = new TextEncoder().encode(`name=${"a".repeat(16 * 1024)}&`);
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < 8; i++) controller.enqueue(chunk);
      controller.close();
    },
  });
  const answer = await fetch(`${consoleUrl}/login`, { method: "POST", body, headers: { "content-type": "application/x-www-form-urlencoded" } });
  expect([answer.status, await answer.text()]).toEqual([400, expect.stringContaining("Not a form of the console.")]);
});
