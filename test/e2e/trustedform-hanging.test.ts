// TrustedForm hanging through the hold (docs/certificates.md "Wiring"): the real server with its
// worker, the mock receiver playing TrustedForm and receiving the callbacks, on 127.0.0.1 ephemeral
// ports; on SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres. With one request at a
// time, each hanging to its timeout, more leads arrive than can be asked in their hold: a pass
// claims only what it can ask now, so no certificate is asked about at once twice and none after its
// lead's hold has ended (a retain billed for a lead already decided); each lead is decided by
// --trustedform-unreachable.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { validLead } from "../helpers/leads.ts";
import { post, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";

const HOLD_MS = 3_000;
const TIMEOUT_MS = 1_000;
const LEADS = 8;

let receiver: MockReceiver;
let server: ApiTestServer;

beforeAll(async () => {
  receiver = startMockReceiver({ port: 0 });
  receiver.setCertificate({ scenario: "hang" });
  server = await startApiTestServer({
    holdPeriodMs: HOLD_MS,
    workerPollIntervalMs: 20,
    allowPrivateCallbacks: true,
    trustedFormApiKey: "tf-hanging-key-0123456789",
    trustedFormBaseUrl: new URL("/trustedform", receiver.url).href,
    trustedFormUnreachable: "accept",
    trustedFormConcurrency: 1,
    certificateTimeoutMs: TIMEOUT_MS,
  });
});
afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
});

const certificateId = () => crypto.randomUUID().replaceAll("-", "").padEnd(40, "0");

test("more leads than can be asked in their hold: none asked twice at once, none after its hold ended", async () => {
  const posted = await Promise.all(
    Array.from({ length: LEADS }, async (_, i) => {
      const certificate = certificateId();
      const path = `/tf-hanging/${i}`;
      const body = validLead({ certificate_url: `https://cert.trustedform.com/${certificate}`, call_back_url: `${receiver.url.origin}${path}` });
      const answer = await post(`${server.url}/v1/postLead`, body, { authorization: server.auth });
      expect(answer.status).toBe(200);
      return { leadId: answer.body.lead_id as string, certificate, path };
    }),
  );
  for (const { path } of posted) expect((await receiver.waitFor(1, { path, timeoutMs: 15_000 }))[0]!.json).toMatchObject({ status: "accepted" });
  // Long enough for what a queue of claimed leads would still send after their decisions.
  await Bun.sleep(3 * TIMEOUT_MS);
  const holds = new Map((await server.rows("SELECT id, decide_after FROM leads")).map((row) => [row.id as string, Number(row.decide_after)]));
  const requests = receiver.certificateRequests();
  expect(requests.length).toBeGreaterThan(0);
  for (const { leadId, certificate } of posted) {
    const times = requests.filter((request) => request.token === certificate).map((request) => Date.parse(request.receivedAt));
    // Sent before the hold ended, each one after the last had timed out (never two at once).
    for (const at of times) expect(at).toBeLessThan(holds.get(leadId)!);
    for (let i = 1; i < times.length; i++) expect(times[i]! - times[i - 1]!).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);
  }
}, 30_000);
