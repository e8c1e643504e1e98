// The operator's acceptance policy in force at intake (docs/contract.md §10): none imported, intake
// answers as before; a document imported while the service runs takes effect within 2 s. A time
// bound: .ci/serial-tests runs this file alone. What the rules and schedules answer:
// policy-rules.test.ts. On SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { postLead, prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { installPolicy } from "../helpers/policy.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";

let server: ApiTestServer;

beforeAll(async () => {
  server = await startApiTestServer();
});
afterAll(() => server.stop());

/** Imports `document` as the operator does and waits until the service applies it; answers how long that took, in ms. */
const install = (document: Record<string, unknown>) => installPolicy(server.store, [server], server.auth, document);

test("no policy: postLead and prePing (with a campaign) answer as before", async () => {
  expect((await server.rows("SELECT count(*) AS n FROM policy"))[0]!.n).toBe(0);
  expect((await postLead(server, server.auth, validLead({ state: "TX" }))).status).toBe(200);
  expect((await prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: "solar-q4" })).status).toBe(200);
});

test("a policy imported while the service runs takes effect within 2 s, without a restart", async () => {
  const took = await install({});
  expect(took).toBeLessThan(2_000);
});
