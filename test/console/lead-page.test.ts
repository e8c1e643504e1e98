// One lead's page as an operator reads it: the service's bookkeeping columns hidden, each decision
// with who made it and when, a notice shown once right after the action that left it (never on a
// reload, an old address or another lead), and the reason box saying who reads the reason.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { timeText } from "../../src/console/page.ts";
import { op } from "../../src/db/script.ts";
import { recordOperatorDecision } from "../../src/final-results/operator.ts";
import { postedLead } from "../helpers/api.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { addOperator, cookiesSet, getPage, OPERATOR, signIn, type SignedIn } from "./console-client.ts";

const DECIDED = "Decision recorded: it is applied when the hold period ends.";

let server: ApiTestServer;
let operator: SignedIn;

beforeAll(async () => {
  // Leads stay pending for the whole file: an hour's hold.
  server = await startApiTestServer({ consolePort: 0, holdPeriodMs: 3_600_000 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
});
afterAll(() => server.stop());

const pendingLead = () => postedLead(server, server.auth);

/** The newest audit entry of a decision on the lead. */
async function decisionEntry(leadId: string) {
  const entries = await server.store.read((t) => op(t.audit.list(50)));
  return entries.find((entry) => entry.subject === leadId && entry.action === "lead.decide")!;
}

test("the fields leave out the worker's lease on the lead (claim_token, locked_until)", async () => {
  const page = await operator.get(`/leads/${await pendingLead()}`);
  expect(page.status).toBe(200);
  expect(page.text).toContain('<th class="mono">customer_name</th>');
  expect(page.text).not.toContain("claim_token");
  expect(page.text).not.toContain("locked_until");
});

test("each decision shows who made it and when, from the console and from the CLI", async () => {
  const leadId = await pendingLead();
  const decided = await operator.post(`/leads/${leadId}/decide`, { csrf: operator.csrf, decision: "reject", reason: "failed: the fraud check" });
  expect(decided.status).toBe(303);
  const first = await decisionEntry(leadId);
  const later = first.at + 5_000;
  await recordOperatorDecision(server.store, leadId, "accept", null, "cli:carol", later);

  const page = await operator.get(`/leads/${leadId}`);
  expect(page.text).toContain(`<li><time>${timeText(first.at)}</time> Operator decision by operator:${OPERATOR.name}: reject (failed: the fraud check)</li>`);
  expect(page.text).toContain(`<li><time>${timeText(later)}</time> Operator decision by cli:carol: accept</li>`);
  expect(page.text.indexOf("by operator:")).toBeLessThan(page.text.indexOf("by cli:carol"));
});

test("the decision's notice shows once, right after the decision: not on a reload, an old address, or another lead", async () => {
  const [leadId, otherId] = [await pendingLead(), await pendingLead()];
  const decided = await operator.post(`/leads/${leadId}/decide`, { csrf: operator.csrf, decision: "accept" });
  expect([decided.status, decided.headers.get("location")]).toEqual([303, `/leads/${leadId}`]);
  // The notice travels in a cookie for this lead's page alone.
  expect(decided.headers.get("set-cookie")).toContain(`Path=/leads/${leadId};`);

  const shown = await operator.follow(decided);
  expect(shown.text).toContain(DECIDED);
  // The page that shows the notice deletes it: the browser's next visit has no such cookie.
  expect(cookiesSet(shown)).toEqual([]);
  expect(shown.headers.get("set-cookie")).toMatch(/Max-Age=0/);
  expect((await operator.get(`/leads/${leadId}`)).text).not.toContain(DECIDED);
  // The address a decision used to return to (bookmarked, or in the history) says nothing now.
  expect((await operator.get(`/leads/${leadId}?done=decided`)).text).not.toContain(DECIDED);
  // Another lead's page, even sent this lead's notice: it names its own lead only.
  const elsewhere = await getPage(`${server.consoleUrl}/leads/${otherId}`, { cookie: [operator.cookie, ...cookiesSet(decided)].join("; ") });
  expect([elsewhere.status, elsewhere.text.includes(DECIDED)]).toEqual([200, false]);
});

test("the reason box says the vendor reads the reason of a reject", async () => {
  const page = await operator.get(`/leads/${await pendingLead()}`);
  expect(page.text).toContain('<input name="reason" maxlength="255" aria-describedby="reason-note">');
  expect(page.text).toContain('<span id="reason-note" class="muted">On a reject, the vendor sees this reason in the callback and the lead lookup.</span>');
});
