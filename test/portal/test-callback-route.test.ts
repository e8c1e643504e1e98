// The Integration page's test callback under its limit, through the portal's handler
// (src/portal/server.ts) on a SQLite file with a fake clock: the 11th of the default 10 within the
// window is 429 with Retry-After and logged portal_test_callback_limited with the vendor; the
// receiver got 10; the clock moved on by the wait, the next is sent. (The same through the real
// service and its thread, with a short window: test/e2e/portal-test-callback-limit.test.ts.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { defaultConfig } from "../../src/config/index.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createClientAddress } from "../../src/http/client-address.ts";
import { createLogger } from "../../src/log/index.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { createPortal } from "../../src/portal/server.ts";
import { storeOn } from "../../src/store/sqlite.ts";
import { csrfOf } from "../console/console-client.ts";
import { tempDatabasePath } from "../helpers/server.ts";

const ACME = { name: "acme", password: "acme-password-1" };
const ORIGIN = "http://127.0.0.1:8080";
let now = Date.now();
const lines: { event: string; vendor?: string; reason?: string; retryAfterSeconds?: number }[] = [];
let temp: ReturnType<typeof tempDatabasePath>;
let database: DatabaseHandle;
let receiver: MockReceiver;
let portal: (request: Request) => Promise<Response>;
let session: { cookie: string; csrf: string };

beforeAll(async () => {
  temp = tempDatabasePath();
  database = openDatabase(temp.path);
  const store = storeOn(database.db);
  await createVendor(store, ACME.name, ACME.password);
  receiver = startMockReceiver({});
  portal = createPortal({
    config: { ...defaultConfig(), allowPrivateCallbacks: true, databasePath: temp.path },
    store,
    log: createLogger("info", (line) => lines.push(JSON.parse(line))),
    clock: () => now,
    clientAddress: createClientAddress([], () => "127.0.0.1"),
    policy: undefined,
  });
  const signedIn = await portal(form("/portal/login", { name: ACME.name, password: ACME.password }));
  const cookie = signedIn.headers.get("set-cookie")!.split(";")[0]!;
  const overview = await portal(new Request(`${ORIGIN}/portal/overview`, { headers: { cookie } }));
  session = { cookie, csrf: csrfOf(await overview.text()) };
});
afterAll(async () => {
  await receiver.stop();
  database.close();
  temp.cleanup();
});

function form(path: string, fields: Record<string, string>, cookie?: string): Request {
  const headers: Record<string, string> = { "content-type": "application/x-www-form-urlencoded", ...(cookie ? { cookie } : {}) };
  return new Request(`${ORIGIN}${path}`, { method: "POST", headers, body: new URLSearchParams(fields).toString() });
}
const sendTest = () => portal(form("/portal/integration/test-callback", { csrf: session.csrf, url: `${receiver.url.origin}/acme` }, session.cookie));

test("the 11th test callback within the window is 429, logged with the vendor, and not sent; after the wait the next is", async () => {
  for (let i = 0; i < 10; i++) expect((await sendTest()).status).toBe(200);
  now += 5_000; // less than the 6 s a test callback takes to come back
  const refused = await sendTest();
  expect(refused.status).toBe(429);
  expect(refused.headers.get("retry-after")).toBe("1");
  expect(await refused.text()).toContain('<p class="problem" role="alert">Too many test callbacks: try again in 1 s.</p>');
  expect(lines.filter((line) => line.event === "portal_test_callback_limited")).toEqual([
    expect.objectContaining({ vendor: "acme", reason: "budget", retryAfterSeconds: 1 }),
  ]);
  expect(receiver.received("/acme")).toHaveLength(10);
  now += 1_000;
  expect((await sendTest()).status).toBe(200);
  expect(receiver.received("/acme")).toHaveLength(11);
  expect(lines.filter((line) => line.event === "portal_test_callback")).toHaveLength(11);
});
