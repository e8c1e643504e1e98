// The caps' gauges of GET /metrics (docs/operations.md "Metrics"): each enabled cap's use in its
// current window and its maximum, read from the database at scrape time; an `each` cap reports its
// busiest bucket. On SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { postLead } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { basicAuth, startApiTestServer, untilAuthenticates, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

let server: ApiTestServer;
const OTHER = { name: "vendor-b", password: "password-b-123" };
let otherAuth: string;

beforeAll(async () => {
  server = await startApiTestServer({ rateLimitPerSecond: 0 });
  await createVendor(server.store, OTHER.name, OTHER.password);
  otherAuth = basicAuth(OTHER.name, OTHER.password);
  await untilAuthenticates(server, otherAuth);
});
afterAll(() => server.stop());

const scrape = async () => (await fetch(`${server.url}/metrics`)).text();
const series = (text: string) => text.split("\n").filter((line) => line.startsWith("lead_ingress_policy_cap_"));

const POLICY = {
  caps: [
    { name: "daily-ny", campaigns: ["solar"], counts: "leads", max: 3, per: "day", time_zone: "America/New_York" },
    { name: "per-vendor", counts: "leads", max: 5, per: "month", each: "vendor" },
    { name: "switched-off", counts: "leads", max: 0, per: "day", enabled: false },
  ],
};

test("with no policy the gauges are declared and have no series, and the policy's version is 0", async () => {
  const text = await scrape();
  expect(text).toContain("\nlead_ingress_policy_version 0\n");
  expect(text).toContain("# TYPE lead_ingress_policy_cap_used gauge");
  expect(text).toContain("# TYPE lead_ingress_policy_cap_max gauge");
  expect(series(text)).toEqual([]);
});

test("each enabled cap's use and max: 0 before its first slot, then the slots taken; an each cap's busiest bucket", async () => {
  expect((await importPolicy(server.store, JSON.stringify(POLICY), "cli:test")).kind).toBe("imported");
  let text = "";
  await waitUntil(async () => series((text = await scrape())).length > 0);
  // The version the instance applies follows the import: what `lead-ingress replay` waits for.
  expect(text).toContain("\nlead_ingress_policy_version 1\n");
  expect(series(text)).toEqual([
    'lead_ingress_policy_cap_used{cap="daily-ny"} 0',
    'lead_ingress_policy_cap_used{cap="per-vendor"} 0',
    'lead_ingress_policy_cap_max{cap="daily-ny"} 3',
    'lead_ingress_policy_cap_max{cap="per-vendor"} 5',
  ]);

  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "solar" }))).status).toBe(200);
  expect(series(await scrape())).toContain('lead_ingress_policy_cap_used{cap="daily-ny"} 1');

  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "wind" }))).status).toBe(200);
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "solar" }))).status).toBe(200);
  expect((await postLead(server, otherAuth, validLead({ vendor_campaign_name: "solar" }))).status).toBe(200);
  // daily-ny is full; its refusal takes no slot anywhere.
  expect((await postLead(server, otherAuth, validLead({ vendor_campaign_name: "solar" }))).status).toBe(422);
  expect(series(await scrape())).toEqual([
    'lead_ingress_policy_cap_used{cap="daily-ny"} 3',
    // vendor-a took 3 slots, vendor-b 1: the busiest vendor's.
    'lead_ingress_policy_cap_used{cap="per-vendor"} 3',
    'lead_ingress_policy_cap_max{cap="daily-ny"} 3',
    'lead_ingress_policy_cap_max{cap="per-vendor"} 5',
  ]);
});
