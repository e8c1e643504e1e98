// `rules import | export | test` against the database of a running service (docs/contract.md §10
// "Managing it"): an invalid document is refused whole with every problem by path; a valid one
// replaces the policy, audited with what changed; export imports back unchanged; `rules test`
// answers what postLead answers.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { postLead } from "../helpers/api.ts";
import { cli } from "../helpers/cli.ts";
import { calendarWindow } from "../../src/policy/index.ts";
import { validLead } from "../helpers/leads.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.stop());

const rules = (...args: string[]) => cli(server.config.databasePath, "rules", ...args);

let fileNo = 0;
async function file(text: string): Promise<string> {
  const path = join(server.config.databasePath, `../rules-${++fileNo}.json`);
  await Bun.write(path, text);
  return path;
}

const DOCUMENT = `{
  "rules": [
    { "name": "states-served", "vendors": ["vendor-a"], "campaigns": ["solar-q4"],
      "require": { "field": "state", "op": "in", "value": ["CA", "NY"] },
      "reason": "State not served: {state}" },
    { "name": "zip-nine", "require": { "field": "zip", "op": "starts_with", "value": "9" } }
  ],
  "schedules": [
    { "name": "weekends-only", "vendors": ["nobody"], "open": { "sat": "00:00-24:00" } }
  ]
}
`;

const auditRows = () => server.db.sqlite.query("SELECT actor, action, subject, detail FROM audit_log WHERE action = 'policy.import' ORDER BY id").all();
const stored = () => server.db.sqlite.query("SELECT version, document FROM policy").all();

test("an invalid document changes nothing, exits 1 and names every problem by its path", async () => {
  await rules("import", await file(DOCUMENT));
  const before = { export: (await rules("export")).out, stored: stored(), audit: auditRows().length };
  const invalid = await file(
    JSON.stringify({
      rules: [
        { name: "a", require: { field: "state", op: "near", value: "CA" } },
        { name: "a", require: { field: "certificate.verified", op: "equals", value: true } },
      ],
      schedules: [{ name: "s", time_zone: "Mars/Olympus", open: { mon: "25:00-26:00" } }],
      budget: 1,
    }),
  );
  const run = await rules("import", invalid);
  expect(run.code).toBe(1);
  expect(run.out).toBe("");
  const lines = run.err.trimEnd().split("\n");
  expect(lines.at(-1)).toBe(`Nothing changed: ${invalid} has ${lines.length - 1} problems.`);
  const paths = lines.slice(0, -1).map((line) => line.slice(0, line.indexOf(": ")));
  expect(paths).toEqual(["/rules/0/require/op", "/rules/1/name", "/rules/1/require/field", "/schedules/0/time_zone", "/schedules/0/open/mon", "/budget"]);
  expect({ export: (await rules("export")).out, stored: stored(), audit: auditRows().length }).toEqual(before);

  expect(await rules("import", await file("{ not json"))).toMatchObject({ code: 1, out: "" });
  expect(stored()).toEqual(before.stored);
});

test("final rules and final-stage checks are imported and applied, without a note; only rules reading certificate.* facts (filled with a TrustedForm key only) get one", async () => {
  const withFinal = await file(
    JSON.stringify({ rules: [{ name: "owners", stage: "final", require: { field: "extra_data.home_owner", op: "equals", value: true } }] }),
  );
  const run = await rules("import", withFinal);
  expect(run.code).toBe(0);
  expect(run.err).toBe("");
  const certified = { name: "certified", stage: "final", require: { not: { field: "certificate.verified", op: "equals", value: false } } };
  const withCertificate = await file(JSON.stringify({ rules: [{ name: "owners", stage: "final", require: { field: "state", op: "not_blank" } }, certified] }));
  const noted = await rules("import", withCertificate);
  expect(noted.code).toBe(0);
  expect(noted.err).toBe(
    "note: /rules/1 (certified): a final rule reading certificate.* facts, which are blank unless the service verifies TrustedForm certificates (--trustedform-api-key)\n",
  );
  const checked = {
    rules: [{ name: "no-landline", stage: "final", require: { field: "check.linetype.reason", op: "not_equals", value: "landline" } }],
    checks: [{ name: "linetype", stage: "final", url: "https://lines.example.com/check", send: ["phone_number"] }],
  };
  expect(await rules("import", await file(JSON.stringify(checked)))).toMatchObject({ code: 0, err: "" });
});

test("a document with caps is imported: caps are enforced", async () => {
  const document = `${JSON.stringify({ caps: [{ name: "daily", counts: "leads", max: 10, per: "day" }] })}\n`;
  const run = await rules("import", await file(document));
  expect(run).toMatchObject({ code: 0, err: "" });
  expect((await rules("export")).out).toBe(document);
});

test("import replaces the policy, bumps the version and audits what changed; export imports back unchanged", async () => {
  const first = await rules("import", await file(DOCUMENT));
  expect(first.code).toBe(0);
  const version = (stored()[0] as { version: number }).version;
  expect(first.out).toStartWith(`Imported `);
  expect(first.out).toContain(`the policy is now version ${version}.`);

  const exported = await rules("export");
  expect(exported).toEqual({ code: 0, out: DOCUMENT, err: "" });
  const again = await rules("import", await file(exported.out));
  expect(again.out).toContain(`version ${version + 1}.\n  no entry changed\n`);
  expect((await rules("export")).out).toBe(DOCUMENT);

  const changed = JSON.parse(DOCUMENT);
  changed.rules[1].require.value = "8";
  changed.rules.push({ name: "has-city", require: { field: "city", op: "not_blank" } });
  changed.schedules = [];
  const third = await rules("import", await file(JSON.stringify(changed)));
  expect(third.out).toContain("  rules: added has-city; changed zip-nine\n  schedules: removed weekends-only\n");
  expect(auditRows().at(-1)).toEqual({
    actor: expect.stringMatching(/^cli:/),
    action: "policy.import",
    subject: "policy",
    detail: `version ${version + 2}. rules: added has-city; changed zip-nine. schedules: removed weekends-only`,
  });
});

test("rules test answers what postLead answers for the same lead, naming the entries, storing nothing", async () => {
  await rules("import", await file(DOCUMENT));
  const leads = [
    validLead({ state: "TX", vendor_campaign_name: "Solar-Q4", zip: "10001" }),
    validLead({ state: "CA", vendor_campaign_name: "solar-q4", zip: "90001" }),
    validLead({ state: "TX", vendor_campaign_name: "wind", zip: "90001" }),
    validLead({ state: "TX", vendor_campaign_name: "solar-q4", zip: "90001", email: "not an email" }),
  ];
  // The service applies the import within a second: until then it answers by the last test's
  // policy, which refuses a zip starting with 9.
  await waitUntil(async () => (await postLead(server, server.auth, validLead({ zip: "90001" }))).status === 200, 5_000, 100);
  const leadsBefore = server.db.sqlite.query("SELECT count(*) AS n FROM leads").get();
  const explained = [];
  for (const lead of leads) explained.push(JSON.parse((await rules("test", "--lead", await file(JSON.stringify(lead)), "--vendor", "vendor-a", "--json")).out));
  expect(server.db.sqlite.query("SELECT count(*) AS n FROM leads").get()).toEqual(leadsBefore);
  for (const [i, lead] of leads.entries()) {
    const answer = await postLead(server, server.auth, lead);
    expect({ status: explained[i].status, message: explained[i].message }).toEqual({
      status: answer.status,
      message: answer.status === 200 ? [] : answer.body.message,
    });
  }
  expect(explained[0].refused_by).toEqual([
    { kind: "rule", name: "states-served", reason: "State not served: TX" },
    { kind: "rule", name: "zip-nine", reason: "Rejected by rule: zip-nine" },
  ]);

  const text = await rules("test", "--lead", await file(JSON.stringify(leads[0])), "--vendor", "vendor-a");
  expect(text.out).toBe("postLead would answer 422:\n  State not served: TX   (rule states-served)\n  Rejected by rule: zip-nine   (rule zip-nine)\n");
  const closed = await rules("test", "--lead", await file(JSON.stringify(leads[1])), "--vendor", "nobody", "--at", "2026-01-05T12:00:00Z");
  expect(closed.out).toBe("postLead would answer 422:\n  Outside hours of operation: weekends-only   (schedule weekends-only)\n");
});

test("rules test names a full cap in the lead's scope (read from the counters), and answers 200 while it has room", async () => {
  await rules(
    "import",
    await file(JSON.stringify({ caps: [{ name: "cli-cap", campaigns: ["capped"], counts: "leads", max: 2, per: "day", reason: "Full today" }] })),
  );
  const lead = await file(JSON.stringify(validLead({ vendor_campaign_name: "Capped" })));
  const at = "2026-03-04T15:00:00Z";
  const day = calendarWindow("day", Date.parse(at), "UTC");
  const counter = server.db.sqlite.prepare(
    "INSERT OR REPLACE INTO cap_usage (cap_name, bucket, window_start, window_end, used) VALUES ('cli-cap', '', ?, ?, ?)",
  );
  counter.run(day.start, day.end, 1);
  expect(JSON.parse((await rules("test", "--lead", lead, "--at", at, "--json")).out)).toEqual({ status: 200, message: [] });
  counter.run(day.start, day.end, 2);
  expect(JSON.parse((await rules("test", "--lead", lead, "--at", at, "--json")).out)).toEqual({
    status: 422,
    message: [{ error: "Full today" }],
    refused_by: [{ kind: "cap", name: "cli-cap", reason: "Full today" }],
  });
  // Another day's window has room.
  expect(JSON.parse((await rules("test", "--lead", lead, "--at", "2026-03-05T15:00:00Z", "--json")).out).status).toBe(200);
  expect(server.db.sqlite.query("SELECT used FROM cap_usage WHERE cap_name = 'cli-cap'").all()).toEqual([{ used: 2 }]);
});
