// The Audit log page against the real server: filtered by who (a bare name is the operator or the
// OS user), what (an action, or a family of them by its first word) and UTC days, a hundred a page,
// "Older" continuing below the page's last entry with the same filter.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { auditEntry } from "../../src/console/audit.ts";
import { op } from "../../src/db/script.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { addOperator, signIn, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let operator: SignedIn;
const DAY = 86_400_000;
const JAN_1 = Date.parse("2026-01-01T00:00:00Z");

beforeAll(async () => {
  server = await startApiTestServer({ consolePort: 0 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
  // 150 suppressions by cli:deploy over three days of January, then vendor changes by two people.
  await server.store.write(function* (t) {
    for (let i = 0; i < 150; i++)
      yield* op(
        t.audit.append(
          auditEntry({ actor: "cli:deploy", action: "suppression.add", subject: `+1212555${String(i).padStart(4, "0")}` }, JAN_1 + (i % 3) * DAY + i),
        ),
      );
    yield* op(t.audit.append(auditEntry({ actor: "operator:olivia", action: "vendor.disable", subject: "acme" }, JAN_1 + 5 * DAY)));
    yield* op(t.audit.append(auditEntry({ actor: "cli:olivia", action: "vendor.rotate-secret", subject: "acme" }, JAN_1 + 5 * DAY + 1)));
    yield* op(t.audit.append(auditEntry({ actor: "operator:victor", action: "vendor.enable", subject: "acme" }, JAN_1 + 5 * DAY + 2)));
    yield* op(t.audit.append(auditEntry({ actor: "operator:victor", action: "vendors.odd", subject: "x" }, JAN_1 + 5 * DAY + 3)));
  });
});
afterAll(() => server.stop());

/** The rows of a page as "actor action subject", and its "Older" link if any. */
async function audit(query: string): Promise<{ rows: string[]; older: string | null }> {
  const page = await operator.get(`/audit?${query}`);
  expect(page.status).toBe(200);
  const rows = [...page.text.matchAll(/<tr><td class="mono">[^<]+<\/td><td>([^<]+)<\/td><td class="mono">([^<]+)<\/td><td class="mono">([^<]+)<\/td>/g)].map(
    (match) => `${match[1]} ${match[2]} ${match[3]}`,
  );
  const older = /<a href="([^"]+)" rel="next">Older<\/a>/.exec(page.text)?.[1]?.replaceAll("&amp;", "&") ?? null;
  return { rows, older };
}

test("by actor: a bare name is the operator's and the OS user's entries; a full actor only its own", async () => {
  expect((await audit("actor=olivia&action=vendor")).rows).toEqual(["cli:olivia vendor.rotate-secret acme", "operator:olivia vendor.disable acme"]);
  expect((await audit("actor=operator%3Aolivia&action=vendor")).rows).toEqual(["operator:olivia vendor.disable acme"]);
  expect((await audit("actor=nobody")).rows).toEqual([]);
});

test("by action: exactly, or every action of a first word (and not a longer word that starts the same)", async () => {
  expect((await audit("action=vendor.enable")).rows).toEqual(["operator:victor vendor.enable acme"]);
  expect((await audit("action=vendor&actor=victor")).rows).toEqual(["operator:victor vendor.enable acme"]);
  expect((await audit("action=vendors.odd")).rows).toEqual(["operator:victor vendors.odd x"]);
  // Nothing typed is a wildcard.
  expect((await audit("action=vendor%25")).rows).toEqual([]);
});

test("by UTC days, and paged a hundred at a time with the same filter, newest first, each entry once", async () => {
  // January 2 alone: the 50 entries with i % 3 == 1.
  expect((await audit("since=2026-01-02&until=2026-01-02")).rows).toHaveLength(50);
  const first = await audit("actor=cli%3Adeploy");
  expect(first.rows).toHaveLength(100);
  expect(first.rows[0]).toBe("cli:deploy suppression.add +12125550149");
  expect(first.older).toMatch(/^\/audit\?actor=cli%3Adeploy&older=\d+$/);
  const second = await audit(first.older!.split("?")[1]!);
  expect(second.rows).toHaveLength(50);
  expect(second.rows.at(-1)).toBe("cli:deploy suppression.add +12125550000");
  expect(second.older).toBeNull();
  expect(new Set([...first.rows, ...second.rows]).size).toBe(150);
});

test("a date or a page that is not one is said, and lists nothing", async () => {
  const page = await operator.get("/audit?since=yesterday&older=abc");
  expect(page.text).toContain("Not a date (YYYY-MM-DD): yesterday");
  expect(page.text).toContain("Not a page of the audit log: abc");
  expect(page.text).toContain("No entries match.");
});
