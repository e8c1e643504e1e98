// `leads …` as an operator runs it: a separate process against the running service's database.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { postedLead } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { cli } from "../helpers/cli.ts";

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.stop());

const leads = (...args: string[]) => cli(server.config.databasePath, "leads", ...args);

test("list: newest first, as a table or JSON, filtered by status and vendor, cut at --limit", async () => {
  const older = await postedLead(server, server.auth, validLead({ vendor_campaign_name: "older" }));
  const newer = await postedLead(server, server.auth, validLead({ vendor_campaign_name: "newer" }));
  const table = await leads("list");
  expect(table.code).toBe(0);
  const lines = table.out.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^CREATED\s+ID\s+STATUS\s+TEST\s+VENDOR\s+PHONE\s+CALLBACK\s+CAMPAIGN\s+REASON$/);
  expect(lines[1]).toMatch(new RegExp(`^\\S+Z\\s+${newer}\\s+pending\\s+vendor-a\\s+\\+1\\d{10}\\s+held\\s+newer$`));
  expect(lines[2]).toContain(older);

  const limited = await leads("list", "--limit", "1", "--status", "pending", "--vendor", "vendor-a");
  expect(limited.out.trimEnd().split("\n")).toEqual([
    expect.stringMatching(/^CREATED/),
    expect.stringContaining(newer),
    "(the newest 1; --limit N shows more)",
  ]);
  expect((await leads("list", "--status", "accepted")).out).toBe("No leads.\n");

  const [first] = JSON.parse((await leads("list", "--json", "--limit", "1")).out) as Record<string, unknown>[];
  expect(first).toEqual({
    id: newer,
    created_at: expect.stringMatching(/Z$/),
    status: "pending",
    vendor: "vendor-a",
    phone_e164: expect.stringMatching(/^\+1\d{10}$/),
    vendor_campaign_name: "newer",
    decided_at: null,
    rejection_reason: null,
    callback_status: "held",
    test: false,
  });
});

test("list: a test lead (X-Test-Lead) is marked in the TEST column and --json; --test lists only test leads, --real only real ones", async () => {
  const campaign = `test-mode-${crypto.randomUUID()}`;
  const real = await postedLead(server, server.auth, validLead({ vendor_campaign_name: campaign }));
  const response = await fetch(`${server.url}/v1/postLead`, {
    method: "POST",
    headers: { authorization: server.auth, "x-test-lead": "true" },
    body: JSON.stringify(validLead({ vendor_campaign_name: campaign })),
  });
  expect(response.status).toBe(200);
  const tested = ((await response.json()) as { lead_id: string }).lead_id;

  const lines = (await leads("list", "--campaign", campaign)).out.trimEnd().split("\n");
  expect(lines[1]).toMatch(new RegExp(`^\\S+Z\\s+${tested}\\s+pending\\s+test\\s+vendor-a\\s`));
  expect(lines[2]).toMatch(new RegExp(`^\\S+Z\\s+${real}\\s+pending\\s+vendor-a\\s`));
  const ids = async (...flags: string[]) =>
    (JSON.parse((await leads("list", "--campaign", campaign, "--json", ...flags)).out) as { id: string; test: boolean }[]).map((l) => [l.id, l.test]);
  expect(await ids()).toEqual([
    [tested, true],
    [real, false],
  ]);
  expect(await ids("--test")).toEqual([[tested, true]]);
  expect(await ids("--real")).toEqual([[real, false]]);
  expect(await leads("list", "--test", "--real")).toMatchObject({ code: 2, err: expect.stringContaining("--test and --real exclude each other") });
});

test("list: an unknown vendor or status is an error with exit code 2", async () => {
  expect(await leads("list", "--vendor", "ghost")).toEqual({ code: 2, out: "", err: "No such vendor: ghost\n" });
  expect(await leads("list", "--status", "lost")).toMatchObject({
    code: 2,
    err: expect.stringContaining("--status must be one of pending, accepted, rejected"),
  });
});

test("show: every stored field, the final result and the callback, as text or JSON", async () => {
  const leadId = await postedLead(server, server.auth, validLead({ customer_name: "Ada \u001b[31mLovelace", street: "1 Main St" }));
  const text = await leads("show", leadId);
  expect(text.code).toBe(0);
  expect(text.out).toStartWith(`Lead ${leadId}\n`);
  for (const field of ["vendor", "phone_e164", "customer_name", "state", "zip", "call_back_url", "email", "raw_request", "created_at", "decide_after"]) {
    expect(text.out).toMatch(new RegExp(`^  ${field}\\s+\\S`, "m"));
  }
  expect(text.out).toContain("Ada \\u001b[31mLovelace"); // a vendor's control characters never reach the terminal raw
  expect(text.out).not.toContain("\u001b");
  expect(text.out).toMatch(/^Final result\n  pending: decided after \d{4}-.*Z$/m);
  expect(text.out).toMatch(/^Callback msg_\w+\n(  .*\n)*  status\s+held$/m);
  expect(text.out).toContain("Attempts (0)");

  const detail = JSON.parse((await leads("show", leadId, "--json")).out);
  expect(detail.lead).toMatchObject({ id: leadId, vendor: "vendor-a", status: "pending", street: "1 Main St", created_at: expect.stringMatching(/Z$/) });
  expect(detail.final_result).toEqual({ status: "pending", message: null, decided_at: null });
  expect(detail.callback).toMatchObject({ lead_id: leadId, status: "held", attempt_count: 0 });
  expect(detail.attempts).toEqual([]);
});

test("show: a lead without call_back_url says where the vendor reads its result", async () => {
  const leadId = await postedLead(server, server.auth, validLead({ call_back_url: undefined }));
  const text = await leads("show", leadId);
  expect(text.out).toContain("Callback: none (the lead has no call_back_url; the vendor reads the result with GET /v1/leads/{lead_id})");
  expect(JSON.parse((await leads("show", leadId, "--json")).out)).toMatchObject({ callback: null, attempts: [] });
});

test("list: by phone in any spelling, campaign and a time window; a bad phone or time is a usage error", async () => {
  const phone = uniquePhone();
  const digits = phone.replace(/\D/g, "");
  const id = await postedLead(server, server.auth, validLead({ phone_number: phone, vendor_campaign_name: "window-test" }));
  const listed = async (...filters: string[]) => (JSON.parse((await leads("list", "--json", ...filters)).out) as { id: string }[]).map((l) => l.id);
  expect(await listed("--phone", `+1 ${digits.slice(0, 3)}.${digits.slice(3, 6)}.${digits.slice(6)}`)).toEqual([id]);
  expect(await listed("--campaign", "window-test", "--since", "1h")).toEqual([id]);
  expect(await listed("--campaign", "window-test", "--until", "1h")).toEqual([]);
  expect(await listed("--campaign", "window-test", "--since", "2999-01-01")).toEqual([]);
  expect(await leads("list", "--phone", "555")).toMatchObject({ code: 2, err: expect.stringContaining('--phone: not a valid US phone number: "555"') });
  expect(await leads("list", "--since", "last week")).toMatchObject({ code: 2, err: expect.stringContaining("--since must be a duration") });
});

test("show: by the first digits of the id or by phone; several matches are listed, not guessed", async () => {
  const phone = uniquePhone();
  const first = await postedLead(server, server.auth, validLead({ phone_number: phone }));
  const shown = await leads("show", first.slice(0, 13));
  expect(shown.code).toBe(0);
  expect(shown.out).toStartWith(`Lead ${first}\n`);
  expect((await leads("show", phone)).out).toStartWith(`Lead ${first}\n`);
  // Two leads whose ids share a prefix: UUIDv7s made in the same second share their first 8 digits.
  const second = await postedLead(server, server.auth);
  const shared = [...first].findIndex((c, i) => c !== second[i]);
  const ambiguous = await leads("show", first.slice(0, shared));
  expect(ambiguous.code).toBe(2);
  expect(ambiguous.err).toMatch(new RegExp(`^\\d+ leads match "${first.slice(0, shared)}"; give the whole id:\\n`));
  expect(ambiguous.err).toContain(first);
  expect(ambiguous.err).toContain(second);
});

test("show: an unknown lead is an error with exit code 2", async () => {
  expect(await leads("show", "no-such-lead")).toEqual({ code: 2, out: "", err: "No such lead: no-such-lead\n" });
  expect(await leads("show", "no-such-lead", "--json")).toMatchObject({ code: 2, out: "" });
});

test("decide: records a decision with its reason on a pending lead", async () => {
  const leadId = await postedLead(server, server.auth);
  const run = await leads("decide", leadId, "reject", "--reason", "fraud check");
  expect(run).toEqual({ code: 0, out: `Recorded: lead ${leadId} will be rejected when its hold period ends.\n`, err: "" });
  expect(server.db.sqlite.query("SELECT operator_decision, operator_reason FROM leads WHERE id = ?").get(leadId)).toEqual({
    operator_decision: "reject",
    operator_reason: "fraud check",
  });
  const shown = (await leads("show", leadId)).out;
  expect(shown).toContain("operator decision recorded: reject (fraud check)");
  // Who decided and when: the decision's audit entry.
  expect(shown).toMatch(/^Operator decisions\n  \d{4}-\d\d-\d\dT[\d:.]+Z  cli:\S+  reject: fraud check$/m);
  expect(JSON.parse((await leads("show", leadId, "--json")).out).operator_decisions).toEqual([
    { at: expect.stringMatching(/Z$/), actor: expect.stringMatching(/^cli:\S+$/), action: "lead.decide", subject: leadId, detail: "reject: fraud check" },
  ]);
});

test("show: a stored value of any size or depth is cut in the text, with a note; --json gives it whole", async () => {
  const leadId = await postedLead(server, server.auth);
  // A lead stored before the body's nesting limit (written here directly, past intake).
  const extraData = `${'{"a":['.repeat(16_000)}1${"]}".repeat(16_000)}`;
  const rawRequest = `{"extra_data":${extraData}}`;
  server.db.sqlite.run("UPDATE leads SET raw_request = ?, extra_data = ? WHERE id = ?", [rawRequest, extraData, leadId]);
  const text = await leads("show", leadId);
  expect(text.code).toBe(0);
  expect(text.out.length).toBeLessThan(20_000);
  expect(text.out).toMatch(/^  raw_request\s+\{"extra_data":\{"a":\[\{.* … truncated, [\d,]+ more bytes not shown \(--json shows all\)$/m);
  expect(text.out).toMatch(/^  extra_data\s+\{"a":\[\{.* … truncated, [\d,]+ more bytes not shown \(--json shows all\)$/m);
  const detail = JSON.parse((await leads("show", leadId, "--json")).out);
  expect([detail.lead.raw_request === rawRequest, detail.lead.extra_data === extraData]).toEqual([true, true]);
});

test("decide: an unknown lead, a decided lead and a bad decision are clear errors with exit code 2", async () => {
  expect(await leads("decide", "no-such-lead", "accept")).toMatchObject({ code: 2, err: expect.stringContaining("No such lead: no-such-lead") });
  const leadId = await postedLead(server, server.auth);
  server.db.sqlite.run("UPDATE leads SET status = 'accepted' WHERE id = ?", [leadId]);
  expect(await leads("decide", leadId, "reject")).toMatchObject({ code: 2, err: expect.stringContaining("already accepted") });
  expect(await leads("decide", leadId, "maybe")).toMatchObject({ code: 2, err: expect.stringContaining("Usage") });
});
