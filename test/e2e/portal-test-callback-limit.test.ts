// The portal's limit on test callbacks (docs/portal.md, "For the operator"), through the real
// service and its portal thread, with a short budget (3 at once, back over 9 s: one every 3 s): the
// 4th test callback is 429 with Retry-After and the wait on the page, and the mock receiver got 3;
// another vendor is not touched; after the wait it works again; of two submits together one is sent.
// On SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { addPortalVendor, portalSignIn, startPortalTestServer, type PortalSession } from "../helpers/portal-client.ts";
import type { ApiTestServer } from "../helpers/server.ts";

const ALPHA = { name: "alpha", password: "alpha-password-1" };
const BRAVO = { name: "bravo", password: "bravo-password-1" };
const CHARLIE = { name: "charlie", password: "charlie-password-1" };
const COUNT = 3;
let server: ApiTestServer;
let receiver: MockReceiver;

beforeAll(async () => {
  // A timeout long enough that a slow receiver keeps a test callback in flight for the concurrent case.
  server = await startPortalTestServer({ portalTestCallbacks: COUNT, portalTestCallbackWindowMs: 9_000, callbackTimeoutMs: 5_000 });
  receiver = startMockReceiver({});
  for (const vendor of [ALPHA, BRAVO, CHARLIE]) await addPortalVendor(server, vendor);
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

const sendTest = (session: PortalSession, path: string) => session.post("/portal/integration/test-callback", { url: `${receiver.url.origin}${path}` });
// The two tests run concurrently (bun's test.concurrent): each waits (out a Retry-After, for a slow
// receiver), for vendors and receiver paths of its own.
const problemOf = (page: string) => /<p class="problem" role="alert">([^<]*)<\/p>/.exec(page)?.[1];

test.concurrent("past its budget a vendor's test callback is 429 with Retry-After, nothing is sent, another vendor is untouched, and after the wait it works again", async () => {
  const alpha = await portalSignIn(server.url, ALPHA);
  for (let i = 0; i < COUNT; i++) {
    const page = await sendTest(alpha, "/alpha");
    expect(page.status).toBe(200);
    expect(page.text).toContain("Delivered:");
  }
  const refused = await sendTest(alpha, "/alpha");
  expect(refused.status).toBe(429);
  const waitSeconds = Number(refused.headers.get("retry-after"));
  expect(waitSeconds).toBeGreaterThanOrEqual(1);
  expect(waitSeconds).toBeLessThanOrEqual(3);
  expect(problemOf(refused.text)).toBe(`Too many test callbacks: try again in ${waitSeconds} s.`);
  expect(refused.text).not.toContain('id="test-result"');

  const bravo = await portalSignIn(server.url, BRAVO);
  const other = await sendTest(bravo, "/bravo");
  expect(other.status).toBe(200);
  expect(other.text).toContain("Delivered:");
  expect(receiver.received("/bravo")).toHaveLength(1);
  expect(receiver.received("/alpha")).toHaveLength(COUNT);

  await Bun.sleep(waitSeconds * 1000);
  const again = await sendTest(alpha, "/alpha");
  expect(again.status).toBe(200);
  expect(again.text).toContain("Delivered:");
  expect(receiver.received("/alpha")).toHaveLength(COUNT + 1);
}, 15_000);

test.concurrent("of two test callbacks submitted together by one vendor, one is sent and the other refused while it is out", async () => {
  receiver.setBehaviour({ path: "/slow", delayMs: 1_500 });
  const charlie = await portalSignIn(server.url, CHARLIE);
  const answers = await Promise.all([sendTest(charlie, "/slow"), sendTest(charlie, "/slow")]);
  expect(answers.map((answer) => answer.status).sort()).toEqual([200, 429]);
  const [sent, refused] = answers[0]!.status === 200 ? answers : [answers[1]!, answers[0]!];
  expect(sent.text).toContain("Delivered:");
  expect(problemOf(refused.text)).toBe("A test callback is being sent already: try again when it is answered (within 5 s).");
  expect(refused.headers.get("retry-after")).toBe("5");
  expect(receiver.received("/slow")).toHaveLength(1);
  // The one in flight done, the vendor may send again at once (its budget has two left).
  expect((await sendTest(charlie, "/slow")).status).toBe(200);
  expect(receiver.received("/slow")).toHaveLength(2);
}, 15_000);
