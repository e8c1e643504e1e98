// Fair callback delivery end to end (docs/contract.md §8): the real server and worker, and one mock
// receiver (one origin) on 127.0.0.1 where vendor A has a path that always fails (/dead) beside a
// flaky one (/flaky: its first requests fail), and vendor B a healthy one (/hook). A's /dead path
// trips its circuit; the attempts it stops are postponed, not counted, and touch neither A's other
// path nor B. On SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { FAILURES_TO_OPEN } from "../../src/callbacks/endpoints.ts";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { validLead } from "../helpers/leads.ts";
import { afterVendorChange, basicAuth, post, startApiTestServer, untilAuthenticates, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

/** Four attempts a callback (three waits), each wait 5 ms once scaled; cooldowns scaled likewise (5 to 300 ms). */
const SCHEDULE = [5_000, 5_000, 5_000];
const SCALE = 0.001;
const ATTEMPTS = SCHEDULE.length + 1;
const DEAD = FAILURES_TO_OPEN + 1;
const HEALTHY = 8;

let server: ApiTestServer;
let receiver: MockReceiver;
let vendorB: string;

beforeAll(async () => {
  server = await startApiTestServer({
    holdPeriodMs: 100,
    workerPollIntervalMs: 20,
    callbackRetrySchedule: SCHEDULE,
    callbackRetryScale: SCALE,
    callbackTimeoutMs: 2_000,
    allowPrivateCallbacks: true,
  });
  const b = await createVendor(server.store, "vendor-b", "password-b-123");
  await afterVendorChange();
  vendorB = basicAuth(b.vendor.name, "password-b-123");
  await untilAuthenticates(server, vendorB);
  receiver = startMockReceiver();
  receiver.setBehaviour({ path: "/dead", status: 503 });
  receiver.setBehaviour({ path: "/flaky", failFirst: 3 });
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

async function submit(authorization: string, path: string): Promise<string> {
  const answer = await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `${receiver.url.origin}${path}` }), { authorization });
  expect(answer.status).toBe(200);
  return answer.body.lead_id;
}

const callbacksOf = async (leadIds: string[]) =>
  Promise.all(leadIds.map(async (leadId) => (await server.store.read((t) => op(t.callbacks.detailOf(leadId))))!));
const allAre = (leadIds: string[], status: string) => async () => (await callbacksOf(leadIds)).every(({ callback }) => callback.status === status);

test("a failing path beside healthy ones on the same origin: every healthy callback is delivered, and none is dead without its attempts really sent", async () => {
  const dead: string[] = [];
  const flaky: string[] = [];
  const other: string[] = [];
  // The failing path's callbacks first; the others once its circuit has opened, so they are sent while it is open.
  for (let i = 0; i < DEAD; i++) dead.push(await submit(server.auth, "/dead"));
  await receiver.waitFor(FAILURES_TO_OPEN, { path: "/dead", timeoutMs: 10_000 });
  for (let i = 0; i < HEALTHY; i++) {
    flaky.push(await submit(server.auth, "/flaky"));
    other.push(await submit(vendorB, "/hook"));
  }
  await waitUntil(allAre([...flaky, ...other], "delivered"), 20_000, 20);
  await waitUntil(allAre(dead, "dead"), 30_000, 20);

  // Not one attempt recorded that was not made.
  const [notSent] = await server.rows("SELECT count(*) AS n FROM callback_attempts WHERE error LIKE $1", "Not sent%");
  expect(Number(notSent!.n)).toBe(0);
  // Each callback's attempts are exactly the requests the receiver got with its webhook-id.
  const requests = new Map<string, number>();
  for (const request of receiver.received()) requests.set(request.headers["webhook-id"]!, (requests.get(request.headers["webhook-id"]!) ?? 0) + 1);
  for (const { callback, attempts } of await callbacksOf([...dead, ...flaky, ...other])) {
    expect({ id: callback.id, counted: callback.attempt_count, recorded: attempts.length }).toEqual({
      id: callback.id,
      counted: requests.get(callback.id) ?? 0,
      recorded: requests.get(callback.id) ?? 0,
    });
  }
  // The failing path's callbacks died after their whole schedule, every attempt sent and answered 503.
  for (const { attempts } of await callbacksOf(dead)) expect(attempts.map((attempt) => attempt.status_code)).toEqual(Array(ATTEMPTS).fill(503));
  expect(receiver.received("/dead")).toHaveLength(DEAD * ATTEMPTS);

  // Only vendor A's /dead is paused: shown with when it is tried again, and counted on /metrics.
  const paused = await server.store.read((t) => op(t.pausedEndpoints.list()));
  expect(paused.map(({ vendorName, target, failures }) => ({ vendorName, target, failures }))).toEqual([
    { vendorName: "vendor-a", target: `${receiver.url.origin}/dead`, failures: FAILURES_TO_OPEN },
  ]);
  expect(paused[0]!.pausedUntil).toBeGreaterThan(paused[0]!.pausedAt);
  expect(await (await fetch(`${server.url}/metrics`)).text()).toContain("lead_ingress_callback_endpoints_paused 1");
}, 60_000);
