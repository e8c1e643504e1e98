// The server answers intake's POSTs without Elysia (app.ts `intake`, server.ts routes): each
// answer, headers included, is the one app.handle gives through the Elysia routes, for every
// outcome those routes have: accepted, refused fields, malformed and oversized bodies, wrong or
// missing credentials, test mode.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { createApp } from "../../src/app.ts";
import { sqliteBackend } from "../../src/backend/index.ts";
import { defaultConfig } from "../../src/config/index.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { createLogger } from "../../src/log/index.ts";
import { createMetrics } from "../../src/metrics/index.ts";
import { storeOn } from "../../src/store/sqlite.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { basicAuth } from "../helpers/server.ts";

let database: DatabaseHandle;
let app: ReturnType<typeof createApp>;
const authorization = basicAuth("direct-vendor", "direct-password");

beforeAll(async () => {
  database = openDatabase(":memory:");
  await createVendor(storeOn(database.db), "direct-vendor", "direct-password");
  app = createApp({
    config: { ...defaultConfig(), rateLimitPerSecond: 0, bodyLimitBytes: 1024 },
    backend: sqliteBackend(database, createGroupCommitter(database.sqlite)),
    log: createLogger("silent"),
    metrics: createMetrics(),
  });
});
afterAll(() => database.close());

/** An answer as a client sees it; a new lead's id (each side makes its own) as "<lead>". */
async function seen(response: Response) {
  const body = (await response.text()).replace(/"lead_id":"[^"]+"/, '"lead_id":"<lead>"');
  return { status: response.status, headers: Object.fromEntries(response.headers), body };
}

type Case = [name: string, path: string, body: () => string, headers?: Record<string, string>];
const CASES: Case[] = [
  ["a lead accepted", "/v1/postLead", () => JSON.stringify(validLead())],
  ["a lead's fields refused", "/v1/postLead", () => JSON.stringify({ ...validLead(), zip: "1", email: "x" })],
  ["a test lead by its route", "/v1/test/postLead", () => JSON.stringify(validLead())],
  ["a malformed body", "/v1/postLead", () => '{"phone_number":'],
  ["a body too large", "/v1/postLead", () => JSON.stringify({ pad: "x".repeat(2000) })],
  ["a bad Idempotency-Key", "/v1/postLead", () => JSON.stringify(validLead()), { "idempotency-key": "a b" }],
  ["a prePing eligible", "/v1/prePing", () => JSON.stringify({ phone_number: uniquePhone() })],
  ["a prePing's number refused", "/v1/prePing", () => JSON.stringify({ phone_number: "x" })],
  ["a test prePing by its header", "/v1/prePing", () => JSON.stringify({ phone_number: uniquePhone() }), { "x-test-lead": "true" }],
  ["a test prePing by its route", "/v1/test/prePing", () => JSON.stringify({ phone_number: uniquePhone() })],
  ["a wrong password", "/v1/postLead", () => "{}", { authorization: basicAuth("direct-vendor", "wrong") }],
  ["no credentials", "/v1/prePing", () => "{}", { authorization: "" }],
];

test.each(CASES)("%s: the same answer without Elysia as through it", async (_name, path, body, headers = {}) => {
  const request = () => {
    const sent: Record<string, string> = { authorization, ...headers };
    if (sent.authorization === "") delete sent.authorization;
    return new Request(`http://localhost${path}`, { method: "POST", headers: sent, body: body() });
  };
  const direct = app.intake.get(path);
  expect(direct).toBeDefined();
  const [viaElysia, withoutIt] = await Promise.all([app.handle(request()).then(seen), direct!(request(), path).then(seen)]);
  expect(withoutIt).toEqual(viaElysia);
});

test("every intake route has its direct answer, and nothing else does", () => {
  expect([...app.intake.keys()].sort()).toEqual(["/v1/postLead", "/v1/prePing", "/v1/test/postLead", "/v1/test/prePing"]);
});
