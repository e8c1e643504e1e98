// The Policy page against the real server on either backend: it shows the document in force with
// its version and who changed it; an edit is checked as `rules import` checks it (an invalid one
// changes nothing and names every problem by path), is in force for postLead within 2 s and is
// audited with what it changed; a save over a version newer than the one read is refused; an
// entry is disabled and enabled by its button; no change is taken without the session's CSRF token;
// each cap's use in its window and each entry's refusals since 00:00 UTC are shown, bounded.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { ensureChecksSecret } from "../../src/checks/secret.ts";
import { op } from "../../src/db/script.ts";
import { BUCKETS_SHOWN, startOfUtcDay } from "../../src/console/policy-use.ts";
import { calendarWindow } from "../../src/policy/index.ts";
import { exportPolicy, importPolicy } from "../../src/policy-in-force/manage.ts";
import { refusalsPerEntry } from "../../src/refusals/per-entry.ts";
import { postLead } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { installPolicy } from "../helpers/policy.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { addOperator, getPage, OPERATOR, postForm, signIn, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let operator: SignedIn;

beforeAll(async () => {
  server = await startApiTestServer({ consolePort: 0 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
});
afterAll(() => server.stop());

const STATES = {
  name: "states-served",
  campaigns: ["policy-page"],
  require: { field: "state", op: "in", value: ["NY", "NJ"] },
  reason: "State not served: {state}",
};
const ZIP = { name: "zip-five", require: { field: "zip", op: "matches", value: "^[0-9]{5}$" } };
const HOURS = { name: "always-open", open: { mon: "00:00-24:00", tue: "00:00-24:00" }, enabled: false };

/** The hidden version a page's edit form carries. */
const formVersion = (page: string) => /name="version" value="(\d+)"/.exec(page)![1]!;
/** The text of the page's textarea, as the browser reads it (entities decoded, the leading newline dropped). */
const textareaOf = (page: string) =>
  /<textarea[^>]*>\n([\s\S]*?)<\/textarea>/
    .exec(page)![1]!
    .replaceAll("&quot;", '"')
    .replaceAll("&#39;", "'")
    .replaceAll("&lt;", "<")
    .replaceAll("&gt;", ">")
    .replaceAll("&amp;", "&");
const texasLead = () => postLead(server, server.auth, validLead({ vendor_campaign_name: "policy-page", state: "TX" }));
const stored = () => exportPolicy(server.store);

test("the page shows the document in force, escaped and indented, with its version and who changed it when; entries with their status", async () => {
  const hostile = { ...ZIP, reason: `</pre><script>alert(1)</script>` };
  await importPolicy(server.store, JSON.stringify({ rules: [STATES, hostile], schedules: [HOURS] }), "cli:tester", Date.UTC(2026, 10, 27, 6, 5, 4));
  const page = await operator.get("/policy");
  expect(page.status).toBe(200);
  expect(page.text).toContain('<a href="/policy" class="current">Policy</a>');
  expect(page.text).toMatch(
    /Version <strong>1<\/strong>, changed by <span class="mono">cli:tester<\/span> at <span class="mono">2026-11-27 06:05:04 UTC<\/span>/,
  );
  expect(page.text).not.toContain("<script>alert(1)");
  expect(page.text).toContain("&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  expect(page.text).toContain(`<pre class="mono" id="document">{\n  &quot;rules&quot;: [\n    {\n      &quot;name&quot;: &quot;states-served&quot;,`);
  expect(JSON.parse(textareaOf(page.text))).toEqual({ rules: [STATES, hostile], schedules: [HOURS] });
  expect(formVersion(page.text)).toBe("1");
  const rows = [...page.text.matchAll(/<td class="mono">([^<]+)<\/td>\n<td>([^<]*)<\/td>\n<td class="[^"]+">(enabled|disabled)<\/td>/g)].map((m) => m.slice(1));
  expect(rows).toEqual([
    ["states-served", "every vendor; campaigns policy-page", "enabled"],
    ["zip-five", "every vendor; every campaign", "enabled"],
    ["always-open", "every vendor; every campaign", "disabled"],
  ]);
});

test("a valid edit is in force for postLead within 2 s and audited by the operator with what it changed", async () => {
  await importPolicy(server.store, JSON.stringify({ rules: [ZIP] }), "cli:tester");
  const page = await operator.get("/policy");
  expect((await texasLead()).status).toBe(200);
  const document = JSON.stringify({ rules: [STATES, ZIP] }, null, 2);
  const saved = await operator.post("/policy", { csrf: operator.csrf, version: formVersion(page.text), document });
  expect([saved.status, saved.headers.get("location")]).toEqual([303, "/policy"]);
  const shown = await operator.follow(saved);
  expect(shown.text).toContain("The policy is saved and in force");
  expect(shown.text).toContain(`changed by <span class="mono">operator:${OPERATOR.name}</span>`);
  expect((await stored()).document).toBe(document);

  const started = Date.now();
  await waitUntil(async () => (await texasLead()).status === 422, 2_000, 50);
  expect(Date.now() - started).toBeLessThan(2_000);
  expect((await texasLead()).body.message).toEqual([{ error: "State not served: TX" }]);

  const audit = await server.store.read((t) => op(t.audit.list(5)));
  expect(audit.find((entry) => entry.action === "policy.import")).toMatchObject({
    actor: `operator:${OPERATOR.name}`,
    subject: "policy",
    detail: `version ${(await stored()).version}. rules: added states-served`,
  });
  expect((await operator.get("/audit?action=policy")).text).toContain("rules: added states-served");
});

test("an invalid edit changes nothing and shows every problem by its JSON path, the text kept", async () => {
  const before = await stored();
  const page = await operator.get("/policy");
  const document = JSON.stringify({
    rules: [
      { name: "a", require: { field: "state", op: "bogus", value: "NY" } },
      { name: "b", require: { all: [{ field: "no_such_field", op: "equals", value: "x" }] } },
    ],
    colour: "blue",
  });
  const refused = await operator.post("/policy", { csrf: operator.csrf, version: formVersion(page.text), document });
  expect(refused.status).toBe(422);
  expect(refused.text).toContain("Nothing changed: the document has 3 problems");
  const paths = [...refused.text.matchAll(/<tr><td class="mono">([^<]+)<\/td><td>/g)].map((m) => m[1]);
  expect(paths.sort()).toEqual(["/colour", "/rules/0/require/op", "/rules/1/require/all/0/field"]);
  expect(textareaOf(refused.text)).toBe(document);
  expect(formVersion(refused.text)).toBe(String(before.version));
  expect(await stored()).toEqual(before);

  const notJson = await operator.post("/policy", { csrf: operator.csrf, version: formVersion(page.text), document: "{ rules: [" });
  expect([notJson.status, notJson.text]).toEqual([422, expect.stringMatching(/<td class="mono">\/<\/td><td>is not JSON: /)]);
  expect(await stored()).toEqual(before);
});

test("a save over a version newer than the one read changes nothing and says what saving it would change", async () => {
  const page = await operator.get("/policy");
  const read = formVersion(page.text);
  // Another operator (here the CLI) saves in between.
  await importPolicy(server.store, JSON.stringify({ rules: [STATES, ZIP], schedules: [HOURS] }), "cli:someone-else");
  const between = await stored();
  const mine = JSON.stringify({ rules: [STATES] });
  const stale = await operator.post("/policy", { csrf: operator.csrf, version: read, document: mine });
  expect(stale.status).toBe(409);
  expect(stale.text).toContain(`The policy was changed after you read it (version ${read}): it is now version ${between.version}, by`);
  expect(stale.text).toContain("cli:someone-else");
  expect(stale.text).toContain("<li>rules: removed zip-five</li>");
  expect(stale.text).toContain("<li>schedules: removed always-open</li>");
  expect(textareaOf(stale.text)).toBe(mine);
  expect(await stored()).toEqual(between);
  // Having seen that, saving again (the form now carries the version in force) replaces it.
  expect(formVersion(stale.text)).toBe(String(between.version));
  const again = await operator.post("/policy", { csrf: operator.csrf, version: formVersion(stale.text), document: mine });
  expect(again.status).toBe(303);
  expect((await stored()).document).toBe(mine);
});

test("two saves of the same version at once: one is in force, the other refused; one audit entry", async () => {
  const read = formVersion((await operator.get("/policy")).text);
  const auditBefore = (await server.store.read((t) => op(t.audit.list(100)))).filter((entry) => entry.action === "policy.import").length;
  const documents = [JSON.stringify({ rules: [ZIP] }), JSON.stringify({ rules: [STATES] })];
  const answers = await Promise.all(documents.map((document) => operator.post("/policy", { csrf: operator.csrf, version: read, document })));
  expect(answers.map((answer) => answer.status).sort()).toEqual([303, 409]);
  const winner = documents[answers.findIndex((answer) => answer.status === 303)];
  expect(await stored()).toEqual({ version: Number(read) + 1, document: winner! });
  const auditAfter = (await server.store.read((t) => op(t.audit.list(100)))).filter((entry) => entry.action === "policy.import").length;
  expect(auditAfter).toBe(auditBefore + 1);
});

test("Disable and Enable set and remove an entry's enabled, through the import (audited), and in force", async () => {
  await importPolicy(server.store, JSON.stringify({ rules: [STATES, ZIP] }), "cli:tester");
  await waitUntil(async () => (await texasLead()).status === 422, 2_000, 50);
  const page = await operator.get("/policy");
  const version = formVersion(page.text);
  expect(page.text).toContain('<input type="hidden" name="name" value="states-served">');
  const disabled = await operator.post("/policy/entries", { csrf: operator.csrf, list: "rules", name: "states-served", version, enabled: "false" });
  expect([disabled.status, disabled.headers.get("location")]).toEqual([303, "/policy"]);
  expect((await operator.follow(disabled)).text).toContain("The entry is disabled");
  expect(JSON.parse((await stored()).document)).toEqual({ rules: [{ ...STATES, enabled: false }, ZIP] });
  await waitUntil(async () => (await texasLead()).status === 200, 2_000, 50);
  const audit = await server.store.read((t) => op(t.audit.list(1)));
  expect(audit[0]).toMatchObject({
    actor: `operator:${OPERATOR.name}`,
    action: "policy.import",
    detail: expect.stringContaining("rules: changed states-served"),
  });

  // A button of the page as read before that change is stale now: refused, nothing changed.
  const stale = await operator.post("/policy/entries", { csrf: operator.csrf, list: "rules", name: "zip-five", version, enabled: "false" });
  expect([stale.status, stale.text]).toEqual([409, expect.stringContaining("The policy was changed after you read it")]);
  expect(JSON.parse((await stored()).document).rules[1]).toEqual(ZIP);

  const current = formVersion((await operator.get("/policy")).text);
  const enabled = await operator.post("/policy/entries", { csrf: operator.csrf, list: "rules", name: "states-served", version: current, enabled: "true" });
  expect(enabled.status).toBe(303);
  expect(JSON.parse((await stored()).document)).toEqual({ rules: [STATES, ZIP] });
  await waitUntil(async () => (await texasLead()).status === 422, 2_000, 50);

  const missing = await operator.post("/policy/entries", {
    csrf: operator.csrf,
    list: "rules",
    name: "no-such",
    version: formVersion((await operator.get("/policy")).text),
    enabled: "false",
  });
  expect([missing.status, missing.text]).toEqual([404, expect.stringContaining("The policy has no entry no-such in rules.")]);
});

test("without the session's CSRF token, or signed out, no edit and no Disable is taken", async () => {
  const before = await stored();
  const version = String(before.version);
  const edit = await operator.post("/policy", { version, document: "{}" });
  const disable = await operator.post("/policy/entries", { list: "rules", name: "states-served", version, enabled: "false" });
  const forged = await operator.post("/policy", { csrf: "not-the-token", version, document: "{}" });
  expect([edit.status, disable.status, forged.status]).toEqual([403, 403, 403]);
  // Nor by anyone not signed in; the page itself sends them to sign in.
  const anonymous = await postForm(`${server.consoleUrl}/policy`, { csrf: operator.csrf, version, document: "{}" });
  expect(anonymous.status).toBe(403);
  const page = await getPage(`${server.consoleUrl}/policy`);
  expect([page.status, page.headers.get("location")]).toEqual([303, "/login"]);
  expect(await stored()).toEqual(before);
});

/** The rows of the page's caps table, each a list of its cells' text (tags dropped, entities kept). */
const capUseRows = (page: string): string[][] =>
  [.../<table id="cap-use">[\s\S]*?<tbody>([\s\S]*?)<\/tbody>/.exec(page)![1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<td[^>]*>([\s\S]*?)<\/td>/g)].map((cell) => cell[1]!.replace(/<[^>]+>/g, "")),
  );
/** Each entry's name and its refusals since 00:00 UTC, as the Entries table shows them. */
const refusalCounts = (page: string): string[][] =>
  [...page.matchAll(/<td class="mono">([^<]+)<\/td>\n<td>[^<]*<\/td>\n<td class="[^"]+">(?:enabled|disabled)<\/td>\n<td[^>]*>([^<]*)<\/td>/g)].map((m) => [
    m[1]!,
    m[2]!,
  ]);

test("the page shows each cap's use in its window (when it ends, in UTC, its zone named) and each entry's refusals since 00:00 UTC", async () => {
  const campaign = "cap-use";
  await installPolicy(server.store, [server], server.auth, {
    rules: [{ name: "cap-use-states", campaigns: [campaign], require: { field: "state", op: "equals", value: "NY" }, reason: "NY only" }],
    caps: [{ name: "cap-use-day", campaigns: [campaign], counts: "leads", max: 2, per: "day", time_zone: "America/New_York" }],
  });
  expect((await postLead(server, server.auth, validLead({ vendor_campaign_name: campaign, state: "NY" }))).status).toBe(200);
  const refused = await postLead(server, server.auth, validLead({ vendor_campaign_name: campaign, state: "TX" }));
  expect([refused.status, refused.body.message]).toEqual([422, [{ error: "NY only" }]]);
  // The refusal log is written a few milliseconds after the answer.
  await waitUntil(async () => (await refusalsPerEntry(server.store, startOfUtcDay(Date.now()))).some((entry) => entry.name === "cap-use-states"), 5_000, 25);

  const page = await operator.get("/policy");
  expect(page.status).toBe(200);
  expect(page.text).toContain("<th>Refusals since 00:00 UTC</th>");
  const counts = refusalCounts(page.text);
  expect(counts).toContainEqual(["cap-use-states", "1"]);
  expect(counts).toContainEqual(["cap-use-day", "0"]);
  const windowEnd = calendarWindow("day", Date.now(), "America/New_York").end;
  expect(capUseRows(page.text)).toEqual([
    [
      "cap-use-day",
      "all in scope",
      "1 / 2",
      new Date(windowEnd)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d{3}Z$/, " UTC"),
      "a day in America/New_York",
    ],
  ]);
});

test("an each-campaign cap shows its busiest buckets, at most BUCKETS_SHOWN, a line for the rest, every name escaped", async () => {
  await installPolicy(server.store, [server], server.auth, { caps: [{ name: "per-campaign", counts: "leads", max: 5, per: "hour", each: "campaign" }] });
  const window = calendarWindow("hour", Date.now(), "UTC");
  const take = (bucket: string) =>
    server.store.write((t) => op(t.capUsage.take({ name: "per-campaign", bucket, windowStart: window.start, windowEnd: window.end, max: 5 })));
  const buckets = Array.from({ length: BUCKETS_SHOWN + 2 }, (_, i) => `c-${String(i).padStart(2, "0")}`);
  for (const bucket of buckets) await take(bucket);
  for (let i = 0; i < 3; i++) await take("<b>busy</b>");

  const rows = capUseRows((await operator.get("/policy")).text);
  expect(rows).toHaveLength(BUCKETS_SHOWN + 1);
  expect(rows[0]!.slice(0, 3)).toEqual(["per-campaign", "campaign &lt;b&gt;busy&lt;/b&gt;", "3 / 5"]);
  expect(rows.slice(1, BUCKETS_SHOWN).map((row) => row[1])).toEqual(buckets.slice(0, BUCKETS_SHOWN - 1).map((bucket) => `campaign ${bucket}`));
  expect(rows[BUCKETS_SHOWN]).toEqual(["per-campaign", "and 3 more"]);
});

test("the page shows the checks signing secret, the one stored for the service (and `checks secret` prints)", async () => {
  const secret = await ensureChecksSecret(server.store);
  expect(secret).toMatch(/^whsec_/);
  const page = await operator.get("/policy");
  expect(page.text).toContain('<details id="checks-secret"><summary>Checks signing secret</summary>');
  expect(page.text).toContain(`<p class="mono">${secret}</p>`);
});
