// End to end (the real server and worker, the mock receiver, 127.0.0.1 ephemeral ports): a vendor
// endpoint that hangs or keeps failing must not hold up the callbacks of the others, nor be sent to
// while its circuit is open, nor spend their attempts meanwhile (callbacks/endpoints.ts). Bounds are generous: a behaviour, not a speed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { op } from "../../src/db/script.ts";
import { validLead } from "../helpers/leads.ts";
import { post, startApiTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const TIMEOUT_MS = 8_000;
const CONCURRENCY = 8;
let server: ApiTestServer;
/** One receiver, so one endpoint (an origin), for each behaviour. */
let receivers: Record<"/hangs" | "/fails" | "/ok", MockReceiver>;

beforeAll(async () => {
  server = await startApiTestServer({
    holdPeriodMs: 100,
    workerPollIntervalMs: 20,
    callbackTimeoutMs: TIMEOUT_MS,
    callbackConcurrency: CONCURRENCY,
    callbackRetrySchedule: [60_000], // a failed callback does not come back within the test
    allowPrivateCallbacks: true,
  });
  receivers = { "/hangs": startMockReceiver({}), "/fails": startMockReceiver({}), "/ok": startMockReceiver({}) };
  receivers["/hangs"].setBehaviour({ path: "/hangs", hang: true });
  receivers["/fails"].setBehaviour({ path: "/fails", status: 503 });
});
afterAll(async () => {
  await server.stop();
  await Promise.all(Object.values(receivers).map((receiver) => receiver.stop()));
});

async function submit(path: keyof typeof receivers): Promise<string> {
  const answer = await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `${receivers[path].url.origin}${path}` }), {
    authorization: server.auth,
  });
  expect(answer.status).toBe(200);
  return answer.body.lead_id;
}

test("an endpoint that hangs holds the delivery slots for a second, not for the attempt timeout: another's callbacks arrive meanwhile", async () => {
  // Five times the slots' worth of callbacks to the hanging endpoint, decided first.
  for (let i = 0; i < 5 * CONCURRENCY; i++) await submit("/hangs");
  await waitUntil(() => receivers["/hangs"].received("/hangs").length > 0, 5_000, 10);
  const sentAt = Date.now();
  for (let i = 0; i < 20; i++) await submit("/ok");
  await receivers["/ok"].waitFor(20, { path: "/ok", timeoutMs: 20_000 });
  // Well under one attempt timeout: had the hanging endpoint held every slot, none would be
  // delivered before the first of its attempts timed out. It got the slots for its first second,
  // then no more requests than its cap (a quarter of the slots, at least 4).
  expect(Date.now() - sentAt).toBeLessThan(TIMEOUT_MS / 2);
  expect(receivers["/hangs"].received("/hangs").length).toBeLessThanOrEqual(CONCURRENCY);
}, 30_000);

test("once the attempts of 5 callbacks to an endpoint fail in a row, the next ones are postponed to the cooldown's end: not sent, no attempt spent", async () => {
  const attemptsOf = async (leadId: string) => (await server.store.read((t) => op(t.callbacks.detailOf(leadId))))?.attempts ?? [];
  const callbackOf = async (leadId: string) => (await server.store.read((t) => op(t.callbacks.detailOf(leadId))))!.callback;
  const failing: string[] = [];
  for (let i = 0; i < 5; i++) failing.push(await submit("/fails"));
  await waitUntil(async () => (await Promise.all(failing.map(attemptsOf))).every((attempts) => attempts.length === 1), 10_000, 20);
  for (const leadId of failing) expect((await attemptsOf(leadId))[0]!.error).toBe("HTTP 503");
  const pausedAt = Date.now();
  const later: string[] = [];
  for (let i = 0; i < 7; i++) later.push(await submit("/fails"));
  // Within the circuit's first cooldown (5 s): each given back unsent, due when the pause ends.
  await waitUntil(async () => (await Promise.all(later.map(callbackOf))).every((callback) => Number(callback.next_attempt_at) > pausedAt + 1_000), 4_000, 20);
  for (const leadId of later) {
    expect(await attemptsOf(leadId)).toEqual([]);
    expect(await callbackOf(leadId)).toMatchObject({ status: "pending", attempt_count: 0 });
  }
  expect(receivers["/fails"].received("/fails")).toHaveLength(5);
  const [paused] = await server.store.read((t) => op(t.pausedEndpoints.list()));
  expect(paused).toMatchObject({ vendorName: VENDOR.name, target: `${receivers["/fails"].url.origin}/fails`, failures: 5, lastError: "HTTP 503" });
  expect(paused!.pausedUntil).toBeGreaterThan(pausedAt);
}, 30_000);
