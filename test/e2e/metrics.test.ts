// GET /metrics after real traffic: requests by route and status, intake outcomes, final results,
// callback attempts and the queue gauges (docs/contract.md §9). On either backend (LEAD_INGRESS_TEST_BACKEND).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { op } from "../../src/db/script.ts";
import { discardCallback } from "../../src/operations/callbacks.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { prePing } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { afterVendorChange, basicAuth, post, startApiTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

let server: ApiTestServer;
let receiver: MockReceiver;

beforeAll(async () => {
  server = await startApiTestServer({ holdPeriodMs: 50, workerPollIntervalMs: 20, allowPrivateCallbacks: true });
  receiver = startMockReceiver();
});
afterAll(async () => {
  await server.stop();
  await receiver.stop();
});

const scrape = async () => {
  const response = await fetch(`${server.url}/metrics`);
  expect(response.headers.get("content-type")).toStartWith("text/plain; version=0.0.4");
  return response.text();
};

test("before any traffic, every outcome's counter is there at 0, with the version and the dead-callback gauge", async () => {
  const fresh = await startApiTestServer();
  try {
    const text = await (await fetch(`${fresh.url}/metrics`)).text();
    for (const outcome of ["accepted", "replayed", "invalid", "blocked", "idempotency_conflict"])
      expect(text).toContain(`lead_ingress_intake_total{vendor="vendor-a",outcome="${outcome}"} 0`);
    for (const vendor of ["vendor-a", "unknown"])
      for (const reason of ["unauthorized", "too_many_failures", "rate_limited"])
        expect(text).toContain(`lead_ingress_auth_refusals_total{vendor="${vendor}",reason="${reason}"} 0`);
    for (const result of ["delivered", "retry", "dead", "lease_lost"]) expect(text).toContain(`lead_ingress_callback_attempts_total{result="${result}"} 0`);
    expect(text).toContain('lead_ingress_final_results_total{status="rejected"} 0');
    expect(text).toContain("lead_ingress_intake_to_decision_seconds_count 0");
    expect(text).toContain("lead_ingress_callbacks_dead 0");
    const { version } = await Bun.file(new URL("../../package.json", import.meta.url)).json();
    expect(text).toContain(`lead_ingress_build_info{version="${version}"} 1`);
  } finally {
    await fresh.stop();
  }
});

test("metrics count requests, intake outcomes, decisions and callback attempts", async () => {
  const auth = { authorization: server.auth };
  const lead = validLead({ call_back_url: `${receiver.url.origin}/metrics-cb` });
  expect((await post(`${server.url}/v1/postLead`, lead, auth)).status).toBe(200);
  expect((await post(`${server.url}/v1/postLead`, { ...lead, customer_name: "Someone Else" }, auth)).status).toBe(422);
  expect((await post(`${server.url}/v1/postLead`, { nope: 1 }, auth)).status).toBe(400);
  await receiver.waitFor(1, { path: "/metrics-cb" });
  let text = "";
  await waitUntil(async () => (text = await scrape()).includes('lead_ingress_callback_attempts_total{result="delivered"} 1'));

  expect(text).toContain('lead_ingress_http_requests_total{route="/v1/postLead",status="200"} 1');
  expect(text).toContain('lead_ingress_http_requests_total{route="/v1/postLead",status="422"} 1');
  expect(text).toContain('lead_ingress_http_requests_total{route="/v1/postLead",status="400"} 1');
  expect(text).toContain('lead_ingress_intake_total{vendor="vendor-a",outcome="accepted"} 1');
  expect(text).toContain('lead_ingress_intake_total{vendor="vendor-a",outcome="blocked"} 1');
  expect(text).toContain('lead_ingress_intake_total{vendor="vendor-a",outcome="invalid"} 1');
  expect(text).toContain('lead_ingress_final_results_total{status="accepted"} 1');
  expect(text).toContain("lead_ingress_callback_queue_depth 0");
  expect(text).toContain("lead_ingress_callback_due 0");
  expect(text).toContain("lead_ingress_callback_oldest_pending_age_seconds 0");
  expect(text).toContain("lead_ingress_leads_pending 0");
  // Histograms: each answered request by route, the lead's time to its decision, the attempt's duration.
  expect(text).toContain('lead_ingress_http_request_duration_seconds_count{route="/v1/postLead"} 3');
  expect(text).toMatch(/lead_ingress_http_request_duration_seconds_bucket\{route="\/v1\/postLead",le="\+Inf"\} 3/);
  expect(text).toContain("lead_ingress_intake_to_decision_seconds_count 1");
  expect(Number(/lead_ingress_intake_to_decision_seconds_sum ([\d.e-]+)/.exec(text)![1])).toBeGreaterThanOrEqual(0.05); // the 50 ms hold
  expect(text).toContain('lead_ingress_callback_attempt_duration_seconds_count{result="delivered"} 1');
});

test("the queue gauges show an undelivered callback and its age since the final result", async () => {
  // A callback decided a minute ago and still failing (waiting for its next retry).
  const id = (await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `${receiver.url.origin}/x` }), { authorization: server.auth })).body.lead_id;
  await waitUntil(async () => (await server.rows("SELECT status FROM callbacks WHERE lead_id = $1", id))[0]?.status === "delivered");
  await server.rows("UPDATE callbacks SET status = 'pending', next_attempt_at = $1 WHERE lead_id = $2", Date.now() + 3_600_000, id);
  await server.rows("UPDATE leads SET decided_at = $1 WHERE id = $2", Date.now() - 60_000, id);
  const text = await scrape();
  expect(text).toContain("lead_ingress_callback_queue_depth 1");
  expect(text).toContain("lead_ingress_callback_due 0");
  const age = Number(/lead_ingress_callback_oldest_pending_age_seconds ([\d.]+)/.exec(text)![1]);
  expect(age).toBeGreaterThanOrEqual(60);
  expect(age).toBeLessThan(120);
  await server.rows("UPDATE callbacks SET status = 'dead' WHERE lead_id = $1", id);
  expect(await scrape()).toContain("lead_ingress_callbacks_dead 1");
  // Discarded by an operator: no longer waiting for one.
  expect((await discardCallback(server.store, id, "cli:test", Date.now())).kind).toBe("discarded");
  expect(await scrape()).toContain("lead_ingress_callbacks_dead 0");
});

test("the paused-endpoints gauge counts the endpoints paused by an open circuit", async () => {
  expect(await scrape()).toContain("lead_ingress_callback_endpoints_paused 0");
  const row = {
    vendorId: "v",
    target: "https://hooks.example/dead",
    failures: 5,
    lastError: "HTTP 503",
    pausedAt: Date.now(),
    pausedUntil: Date.now() + 5_000,
  };
  await server.store.write((t) => op(t.pausedEndpoints.pause({ ...row, endpoint: `v ${row.target}` })));
  expect(await scrape()).toContain("lead_ingress_callback_endpoints_paused 1");
  await server.store.write((t) => op(t.pausedEndpoints.resume(`v ${row.target}`)));
  expect(await scrape()).toContain("lead_ingress_callback_endpoints_paused 0");
});

describe("vendor labels: known vendors only", () => {
  test("a vendor added at runtime is shown at 0 from the next scrape, and its leads are counted under its name", async () => {
    const name = `vendor-${crypto.randomUUID().slice(0, 8)}`;
    expect(await scrape()).not.toContain(`vendor="${name}"`);
    await createVendor(server.store, name, "password-b-123");
    await afterVendorChange();
    expect(await scrape()).toContain(`lead_ingress_intake_total{vendor="${name}",outcome="accepted"} 0`);
    const auth = { authorization: basicAuth(name, "password-b-123") };
    expect((await post(`${server.url}/v1/postLead`, validLead(), auth)).status).toBe(200);
    expect(await scrape()).toContain(`lead_ingress_intake_total{vendor="${name}",outcome="accepted"} 1`);
  });

  test('refused credentials: under a known vendor\'s name, or "unknown" (never the name a stranger sent); 429 over the rate limit under the vendor', async () => {
    const limited = await startApiTestServer({ rateLimitPerSecond: 1, rateLimitBurst: 1 });
    try {
      const scrapeLimited = async () => (await fetch(`${limited.url}/metrics`)).text();
      expect((await prePing(limited, basicAuth(VENDOR.name, "wrong-password"), { phone_number: "2125550100" })).status).toBe(401);
      expect((await prePing(limited, basicAuth("stranger-name", "whatever"), { phone_number: "2125550100" })).status).toBe(401);
      expect((await prePing(limited, limited.auth, { phone_number: "2125550100" })).status).toBe(200);
      expect((await prePing(limited, limited.auth, { phone_number: "2125550100" })).status).toBe(429);
      const text = await scrapeLimited();
      expect(text).toContain(`lead_ingress_auth_refusals_total{vendor="${VENDOR.name}",reason="unauthorized"} 1`);
      expect(text).toContain('lead_ingress_auth_refusals_total{vendor="unknown",reason="unauthorized"} 1');
      expect(text).toContain(`lead_ingress_auth_refusals_total{vendor="${VENDOR.name}",reason="rate_limited"} 1`);
      expect(text).not.toContain("stranger-name");
    } finally {
      await limited.stop();
    }
  });
});
