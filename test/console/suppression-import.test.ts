// The Suppression page's CSV import, against the real server: the same import as `suppress import`
// (all or none, problems by line), streamed back as it runs, audited; only a signed-in operator
// with the form's CSRF token may upload.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { op } from "../../src/db/script.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { addOperator, OPERATOR, signIn, type Answer, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let operator: SignedIn;

beforeAll(async () => {
  server = await startApiTestServer({ consolePort: 0 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
});
afterAll(() => server.stop());

async function upload(csv: string, fields: Record<string, string> = { csrf: operator.csrf }, cookie = operator.cookie): Promise<Answer> {
  const body = new FormData();
  for (const [name, value] of Object.entries(fields)) body.append(name, value);
  body.append("file", new File([csv], "numbers.csv", { type: "text/csv" }));
  const response = await fetch(`${server.consoleUrl}/suppression/import`, { method: "POST", body, headers: { cookie }, redirect: "manual" });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const isListed = (e164: string) => server.store.read((t) => op(t.suppressions.isListed(e164)));

test("A file with a bad row imports nothing and lists each problem with its line number", async () => {
  const answer = await upload("phone,reason\n(212) 555-0101,asked\n555,typo\n+1 212 555 0102\n");
  expect(answer.status).toBe(200);
  expect(answer.text).toContain("Nothing was imported: numbers.csv has 2 malformed rows.");
  expect(answer.text).toContain('<tr><td class="mono">3</td><td>not a valid US phone number: &quot;555&quot;</td></tr>');
  expect(answer.text).toContain('<tr><td class="mono">4</td><td>expected 2 columns, found 1</td></tr>');
  expect(answer.text).toEndWith("</html>");
  expect(await isListed("+12125550101")).toBe(false);
});

test("A 100,000-line file is imported, its progress streamed, and the import audited", async () => {
  const lines = Array.from({ length: 100_000 }, (_, i) => `+1 646 5${String(i).padStart(6, "0")},bulk`);
  const answer = await upload(`phone,reason\n${lines.join("\n")}\n`);
  expect(answer.status).toBe(200);
  expect(answer.text).toContain("<li>10,000 rows checked");
  expect(answer.text).toContain("<li>100,000 rows checked (100% of the file)</li>");
  expect(answer.text).toContain("Imported numbers.csv: 100,000 rows, 100,000 added, 0 already listed.");
  expect(await isListed("+16465099999")).toBe(true);
  const audit = await server.store.read((t) => op(t.audit.list(10)));
  expect(audit.map((entry) => [entry.actor, entry.action, entry.subject, entry.detail])).toContainEqual([
    `operator:${OPERATOR.name}`,
    "suppression.import",
    "numbers.csv",
    "100000 rows, 100000 added, 0 already listed",
  ]);
});

test("An upload without the form's CSRF token or without a session is refused, and nothing is imported", async () => {
  expect((await upload("phone\n2125550103\n", {})).status).toBe(403);
  expect((await upload("phone\n2125550103\n", { csrf: operator.csrf }, "")).status).toBe(403);
  expect(await isListed("+12125550103")).toBe(false);
});
