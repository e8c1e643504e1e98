// Requests only a raw socket can send (docs/contract.md §1, §9): no Host header, raw paths the URL parser
// rewrites, and what Bun's HTTP parser refuses before the application sees the request. They are
// written byte for byte over TCP to a spawned server, whose log shows which requests reached it.
// On either backend (LEAD_INGRESS_TEST_BACKEND).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { expectErrorEnvelope } from "../helpers/envelope.ts";
import { validLead } from "../helpers/leads.ts";
import { spawnServer, type ServerProcess } from "../helpers/process.ts";
import { exchange as exchangeRaw, rawRequest } from "../helpers/raw-http.ts";
import { basicAuth, testDatabase, VENDOR, type TestDatabase } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const AUTH = basicAuth(VENDOR.name, VENDOR.password);
let database: TestDatabase;
let server: ServerProcess;
let port: number;

beforeAll(async () => {
  database = await testDatabase();
  server = await spawnServer([
    "--database",
    database.setting,
    "--bootstrap-vendor",
    `${VENDOR.name}:${VENDOR.password}`,
    "--worker",
    "false",
    "--rate-limit",
    "0",
  ]);
  port = Number(new URL(server.url).port);
});
afterAll(async () => {
  await server.stop();
  await database.close();
});

/** Writes `request` as is to the spawned server. */
const exchange = (request: string | Uint8Array) => exchangeRaw(port, request);

const leadCount = async () => (await database.rows("SELECT count(*) AS n FROM leads"))[0]!.n as number;
const loggedPaths = () => server.logs.filter((entry) => entry.event === "request").map((entry) => String(entry.path));

/** Sends a request that reaches the app and waits for its log line: every earlier one is logged too. */
async function syncLog(): Promise<void> {
  const marker = `/healthz-sync-${crypto.randomUUID()}`;
  await exchange(rawRequest(`GET ${marker} HTTP/1.1`, ["Host: sync"]));
  await waitUntil(() => loggedPaths().includes(marker));
}

describe("requests without a usable Host header are routed normally (HTTP/1.0 health checkers, a Host the URL parser refuses)", () => {
  const variants = [
    ["HTTP/1.0 without Host", "HTTP/1.0", []],
    ["an empty Host", "HTTP/1.1", ["Host:"]],
    ["a Host that is not a host name", "HTTP/1.1", ["Host: a b"]],
    // Bun builds request.url from these (http://[::1/healthz), and the URL parser refuses it.
    ["a Host with an unclosed IPv6 bracket", "HTTP/1.1", ["Host: [::1"]],
    ["a Host with a port out of range", "HTTP/1.1", ["Host: lb:99999"]],
  ] as const;

  test.each(variants)("%s: /healthz, /readyz, prePing, an unknown /v1 path; no server error logged", async (_name, version, host) => {
    const send = (line: string, headers: string[] = [], body = "") => exchange(rawRequest(`${line} ${version}`, [...host, ...headers], body));
    const health = await send("GET /healthz");
    expect([health.status, JSON.parse(health.body)]).toEqual([200, { status: "ok" }]);
    const ready = await send("GET /readyz");
    expect([ready.status, JSON.parse(ready.body)]).toEqual([200, { status: "ready" }]);
    const prePing = await send("POST /v1/prePing", [`Authorization: ${AUTH}`], JSON.stringify({ phone_number: "(212) 555-0142" }));
    expect([prePing.status, JSON.parse(prePing.body).can_post_phone_bit]).toEqual([200, true]);
    expectErrorEnvelope(await send("GET /v1/nothing-here", [`Authorization: ${AUTH}`]), 404, "success_bit", "Not Found");
    expectErrorEnvelope(await send("GET /v1/nothing-here"), 401, "success_bit", "Unauthorized");
    await syncLog();
    expect(server.logs.filter((entry) => entry.level === "error")).toEqual([]);
  });
});

describe("paths are routed as the client sent them", () => {
  // Bun's request.url resolves dot segments (also %2e) and reads `\` as `/`: without care,
  // /v1/prePing\..\postLead would run postLead.
  const rewritten = ["/v1/prePing\\..\\postLead", "/v1/prePing/../postLead", "/v1/./postLead", "/v1/%2e/postLead", "/v1\\postLead", "/x/%2E%2E/healthz"];

  test.each(rewritten)("%s → 404 after authentication, nothing stored", async (path) => {
    const lead = JSON.stringify(validLead());
    const stored = await leadCount();
    const method = path.endsWith("healthz") ? "GET" : "POST";
    expectErrorEnvelope(
      await exchange(rawRequest(`${method} ${path} HTTP/1.1`, ["Host: a"], lead)),
      path.startsWith("/v1") ? 401 : 404,
      "success_bit",
      path.startsWith("/v1") ? "Unauthorized" : "Not Found",
    );
    expectErrorEnvelope(await exchange(rawRequest(`${method} ${path} HTTP/1.1`, ["Host: a", `Authorization: ${AUTH}`], lead)), 404, "success_bit", "Not Found");
    expectErrorEnvelope(await exchange(rawRequest(`${method} ${path} HTTP/1.0`, [`Authorization: ${AUTH}`], lead)), 404, "success_bit", "Not Found");
    expect(await leadCount()).toBe(stored);
  });

  test("the plain spellings still route: a query string, absolute form, a trailing slash", async () => {
    const prePing = JSON.stringify({ phone_number: "(212) 555-0142" });
    for (const target of ["/v1/prePing?source=x", "http://elsewhere.example/v1/prePing", "/v1/prePing/"]) {
      const answer = await exchange(rawRequest(`POST ${target} HTTP/1.1`, ["Host: a", `Authorization: ${AUTH}`], prePing));
      expect([target, answer.status]).toEqual([target, 200]);
    }
  });
});

describe("methods", () => {
  test("a method Bun knows but no route takes → 405 with Allow after authentication", async () => {
    expectErrorEnvelope(await exchange(rawRequest("PROPFIND /v1/prePing HTTP/1.1", ["Host: a"])), 401, "can_post_phone_bit", "Unauthorized");
    const answer = await exchange(rawRequest("PROPFIND /v1/prePing HTTP/1.1", ["Host: a", `Authorization: ${AUTH}`]));
    expectErrorEnvelope(answer, 405, "can_post_phone_bit", "Method Not Allowed");
    expect(answer.headers.allow).toBe("POST");
  });
});

describe("what Bun's HTTP parser answers before the application (docs/decisions.md: HTTP edge cases)", () => {
  const auth = `Authorization: ${AUTH}`;
  // [case, raw request with a path of its own, Bun's answer: a status with an empty body, or null: the connection is closed]
  const cases: [string, (path: string) => string, number | null][] = [
    ["HTTP/1.1 without Host", (path) => rawRequest(`GET ${path} HTTP/1.1`, [auth]), 400],
    ["a request target that is not a path", (path) => rawRequest(`GET edge${path} HTTP/1.1`, ["Host: a", auth]), 400],
    ["HTTP/1.2", (path) => rawRequest(`GET ${path} HTTP/1.2`, ["Host: a", auth]), 505],
    ["HTTP/2.0 in an HTTP/1 request line", (path) => rawRequest(`GET ${path} HTTP/2.0`, ["Host: a", auth]), 505],
    ["a request line without a version (HTTP/0.9)", (path) => `GET ${path}\r\n\r\n`, 505],
    ["a header block of 16 KiB or more", (path) => rawRequest(`GET ${path} HTTP/1.1`, ["Host: a", auth, `X-Pad: ${"a".repeat(16_384)}`]), 431],
    ["a space in a header name", (path) => rawRequest(`GET ${path} HTTP/1.1`, ["Host: a", auth, "Bad Name: x"]), 400],
    [
      "Content-Length and Transfer-Encoding together",
      (path) => rawRequest(`POST ${path} HTTP/1.1`, ["Host: a", auth, "Content-Length: 5", "Transfer-Encoding: chunked"], "0\r\n\r\n"),
      400,
    ],
    ["a Content-Length that is not a number", (path) => rawRequest(`POST ${path} HTTP/1.1`, ["Host: a", auth, "Content-Length: ten"]), 400],
    ["two different Content-Lengths", (path) => rawRequest(`POST ${path} HTTP/1.1`, ["Host: a", auth, "Content-Length: 1", "Content-Length: 2"], "ab"), 400],
    ["a Transfer-Encoding other than chunked", (path) => rawRequest(`POST ${path} HTTP/1.1`, ["Host: a", auth, "Transfer-Encoding: gzip"]), 400],
    ["a lower-case method", (path) => rawRequest(`post ${path} HTTP/1.1`, ["Host: a", auth], "{}"), null],
    ["a method Bun does not know", (path) => rawRequest(`FROB ${path} HTTP/1.1`, ["Host: a", auth]), null],
  ];

  test.each(cases)("%s: Bun answers before any handler runs", async (_name, request, bunAnswer) => {
    const path = `/v1/edge-${crypto.randomUUID()}`;
    const answer = await exchange(request(path));
    expect(answer.status).toBe(bunAnswer);
    expect(answer.body).toBe("");
    await syncLog();
    expect(loggedPaths().filter((logged) => logged.includes(path.slice(4)))).toEqual([]);
  });

  test("broken chunked framing inside the body: the handler has started, but Bun answers 400 and closes; nothing is stored", async () => {
    const lead = JSON.stringify(validLead());
    const stored = await leadCount();
    const chunked = `${Buffer.byteLength(lead).toString(16)}\r\n${lead}\r\nzz\r\n\r\n`;
    const answer = await exchange(rawRequest("POST /v1/postLead HTTP/1.1", ["Host: a", `Authorization: ${AUTH}`, "Transfer-Encoding: chunked"], chunked));
    expect([answer.status, answer.body]).toEqual([400, ""]);
    expect(await leadCount()).toBe(stored);
  });
});
