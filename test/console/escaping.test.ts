// Every lead field is written by an untrusted vendor, and a callback's answer by an untrusted
// receiver: on the console they are text, never markup. A lead with hostile values in every field
// a vendor can fill with text (and in extra_data, an unknown field, the operator's reason and the
// receiver's answer) is shown escaped in the list and on its page, and the pages hold no element
// the values could have made.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { escapeHtml } from "../../src/console/html.ts";
import { op } from "../../src/db/script.ts";
import { validLead } from "../helpers/leads.ts";
import { post, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { addOperator, signIn, type SignedIn } from "./console-client.ts";

const HOSTILE = `"'><img src=x onerror=alert(1)>`;
/** The lead's free-text fields, each hostile (the others, URLs included, have formats that refuse markup). */
const HOSTILE_FIELDS = ["customer_name", "city", "street", "dm_name", "utility", "mailing_street", "mailing_city", "vendor_campaign_name"];
const RECEIVER_ANSWER = `<script>alert("receiver")</script><img src=x onerror=alert(2)>`;

let server: ApiTestServer;
let receiver: Bun.Server<unknown>;
let operator: SignedIn;
let leadId: string;
const phone = "(646) 555-0142";

beforeAll(async () => {
  receiver = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(RECEIVER_ANSWER, { status: 500 }) });
  server = await startApiTestServer({
    consolePort: 0,
    allowPrivateCallbacks: true,
    holdPeriodMs: 1_000,
    workerPollIntervalMs: 50,
    callbackRetrySchedule: [20],
  });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
  const lead = validLead({
    ...Object.fromEntries(HOSTILE_FIELDS.map((field) => [field, `${field} ${HOSTILE}`])),
    phone_number: phone,
    call_back_url: `http://127.0.0.1:${receiver.port}/cb`,
    extra_data: { [HOSTILE]: HOSTILE },
    not_a_field: HOSTILE,
  });
  const answer = await post(`${server.url}/v1/postLead`, lead, { authorization: server.auth });
  if (answer.status !== 200) throw new Error(JSON.stringify(answer.body));
  leadId = answer.body.lead_id;
  const decided = await operator.post(`/leads/${leadId}/decide`, { csrf: operator.csrf, decision: "reject", reason: HOSTILE });
  expect(decided.status).toBe(303);
  await waitUntil(async () => (await server.store.read((t) => op(t.callbacks.find(leadId))))?.status === "dead", 15_000);
});
afterAll(async () => {
  await server.stop();
  await receiver.stop(true);
});

/** No element a value could have made: the console's own pages have no img or script at all. */
function expectNoInjectedMarkup(page: string) {
  expect(page).not.toMatch(/<img|<script/i);
}

test("the list shows every hostile value as text", async () => {
  const list = await operator.get(`/leads?phone=${encodeURIComponent("+1 646.555.0142")}`);
  expect(list.status).toBe(200);
  expectNoInjectedMarkup(list.text);
  expect(list.text).toContain(escapeHtml(`vendor_campaign_name ${HOSTILE}`));
  expect(list.text).toContain(escapeHtml(`Rejected by operator: ${HOSTILE}`));
});

test("the lead's page shows every field, the raw request, the reason and the receiver's answer as text", async () => {
  const page = await operator.get(`/leads/${leadId}`);
  expect(page.status).toBe(200);
  expectNoInjectedMarkup(page.text);
  for (const field of HOSTILE_FIELDS) expect(page.text).toContain(escapeHtml(`${field} ${HOSTILE}`));
  expect(page.text).toContain(escapeHtml(`Rejected by operator: ${HOSTILE}`));
  expect(page.text).toContain(escapeHtml(RECEIVER_ANSWER));
  // The raw request (JSON-escaped quotes and all, indented) with the unknown field and extra_data.
  expect(page.text).toContain(escapeHtml(`"not_a_field": ${JSON.stringify(HOSTILE)}`));
  expect(page.text.match(/&lt;img src=x onerror=alert\(1\)&gt;/g)!.length).toBeGreaterThan(HOSTILE_FIELDS.length * 2);
});
