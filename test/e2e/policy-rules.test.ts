// The operator's acceptance policy in force at intake (docs/contract.md §2, §5, §10): rules and
// schedules answer 422 with their reasons, after the number's eligibility. (How soon an imported
// document takes effect, a time bound: policy.test.ts.) On SQLite, or on PostgreSQL with
// LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createVendor } from "../../src/auth/vendors.ts";
import { PHONE_BLOCKED } from "../../src/contract/texts.ts";
import { addSuppression } from "../../src/suppression/index.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { installPolicy } from "../helpers/policy.ts";
import { basicAuth, startApiTestServer, untilAuthenticates, type ApiTestServer } from "../helpers/server.ts";

let server: ApiTestServer;
const OTHER = { name: "vendor-b", password: "password-b-123" };
let otherAuth: string;

beforeAll(async () => {
  // Each test imports a document and waits until it applies: read every 100 ms rather than every second.
  server = await startApiTestServer({ policyReloadMs: 100 });
  await createVendor(server.store, OTHER.name, OTHER.password);
  otherAuth = basicAuth(OTHER.name, OTHER.password);
  await untilAuthenticates(server, otherAuth);
});
afterAll(() => server.stop());

const errors = (...texts: string[]) => texts.map((error) => ({ error }));
const leadCount = async () => Number((await server.rows("SELECT count(*) AS n FROM leads"))[0]!.n);
/** Imports `document` as the operator does and waits until the service applies it. */
const install = (document: Record<string, unknown>) => installPolicy(server.store, [server], server.auth, document);

const WEEKDAYS = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"];
/** The weekday three days from now in `zone`: a schedule open only then is closed for the whole test, whatever the hour. */
function farWeekday(zone: string): string {
  const today = new Intl.DateTimeFormat("en-US", { timeZone: zone, weekday: "short" }).format(new Date()).toLowerCase();
  return WEEKDAYS[(WEEKDAYS.indexOf(today) + 3) % 7]!;
}

const STATES_SERVED = {
  name: "states-served",
  vendors: ["vendor-a"],
  campaigns: ["solar-q4"],
  require: { field: "state", op: "in", value: ["CA", "NY"] },
  reason: "State not served: {state}",
};

test("a rule scoped by vendor and campaign: 422 with its templated reason in scope, nothing stored; 200 out of scope", async () => {
  await install({ rules: [STATES_SERVED] });
  const before = await leadCount();
  const refused = await postLead(server, server.auth, validLead({ state: "tx", vendor_campaign_name: " Solar-Q4 " }));
  expect(refused).toMatchObject({ status: 422, body: { success_bit: false, message: errors("State not served: TX") } });
  expect(await leadCount()).toBe(before);

  expect((await postLead(server, server.auth, validLead({ state: "CA", vendor_campaign_name: "solar-q4" }))).status).toBe(200);
  expect((await postLead(server, server.auth, validLead({ state: "TX", vendor_campaign_name: "wind" }))).status).toBe(200);
  expect((await postLead(server, otherAuth, validLead({ state: "TX", vendor_campaign_name: "solar-q4" }))).status).toBe(200);
});

test("several failing rules: every reason, in the document's order; passing and disabled rules say nothing", async () => {
  await install({
    rules: [
      { name: "zip-nine", require: { field: "zip", op: "starts_with", value: "9" } },
      { name: "has-city", require: { field: "city", op: "not_blank" } },
      { name: "disabled", enabled: false, require: { field: "state", op: "equals", value: "ZZ" } },
      { name: "source", require: { field: "extra_data.source", op: "equals", value: "phone" }, reason: "Source not taken: {extra_data.source}" },
    ],
  });
  const answer = await postLead(server, server.auth, validLead({ zip: "10001", extra_data: { source: "web" } }));
  expect(answer).toMatchObject({ status: 422, body: { message: errors("Rejected by rule: zip-nine", "Source not taken: web") } });
});

test("a closed schedule: postLead 422 with its reason; prePing with a campaign in its scope 422, without one 200", async () => {
  const zone = "America/Chicago";
  await install({
    schedules: [{ name: "call-center", campaigns: ["solar-q4"], time_zone: zone, open: { [farWeekday(zone)]: "00:00-24:00" }, reason: "Call centre closed" }],
  });
  expect(await postLead(server, server.auth, validLead({ vendor_campaign_name: "solar-q4" }))).toMatchObject({
    status: 422,
    body: { message: errors("Call centre closed") },
  });
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: "wind" }))).status).toBe(200);

  const ping = await prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: "SOLAR-Q4" });
  expect(ping).toMatchObject({ status: 422, body: { can_post_phone_bit: false, message: errors("Call centre closed") } });
  expect((await prePing(server, server.auth, { phone_number: uniquePhone() })).status).toBe(200);
  // Eligibility comes first: a blocked number gets its own text.
  const suppressed = uniquePhone();
  await addSuppression(server.store, `+1${suppressed.replace(/\D/g, "")}`, null, "cli:test");
  expect(await prePing(server, server.auth, { phone_number: suppressed, vendor_campaign_name: "solar-q4" })).toMatchObject({
    status: 422,
    body: { message: errors(PHONE_BLOCKED) },
  });
});

test("prePing validates vendor_campaign_name with postLead's texts", async () => {
  const answer = await prePing(server, server.auth, { phone_number: uniquePhone(), vendor_campaign_name: 42 });
  expect(answer).toMatchObject({ status: 400, body: { message: errors("Invalid Type (expected string): vendor_campaign_name") } });
});

test("a duplicate or suppressed number that also fails a rule gets the eligibility text; a re-post of an accepted lead its first answer", async () => {
  const phone = uniquePhone();
  const first = validLead({ phone_number: phone, state: "TX", vendor_campaign_name: "solar-q4" });
  await install({});
  const accepted = await postLead(server, server.auth, first);
  expect(accepted.status).toBe(200);

  await install({ rules: [STATES_SERVED] });
  const duplicate = await postLead(server, server.auth, { ...first, customer_name: "Someone Else" });
  expect(duplicate).toMatchObject({ status: 422, body: { message: errors(PHONE_BLOCKED) } });
  const replayed = await postLead(server, server.auth, first);
  expect(replayed.status).toBe(200);
  expect(replayed.body.lead_id).toBe(accepted.body.lead_id);
  expect(replayed.headers.get("idempotent-replayed")).toBe("true");

  const suppressed = uniquePhone();
  await addSuppression(server.store, `+1${suppressed.replace(/\D/g, "")}`, null, "cli:test");
  const blocked = await postLead(server, server.auth, validLead({ phone_number: suppressed, state: "TX", vendor_campaign_name: "solar-q4" }));
  expect(blocked).toMatchObject({ status: 422, body: { message: errors(PHONE_BLOCKED) } });
});
