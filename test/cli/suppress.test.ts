// `suppress …` against the database of a running service: the list changes what the service
// answers at once; CSV import is all or nothing, idempotent, streams, and shows progress only on a
// terminal.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { prePing } from "../helpers/api.ts";
import { uniquePhone } from "../helpers/leads.ts";
import { productCommand } from "../helpers/process.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { cli, type CliRun } from "../helpers/cli.ts";

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.stop());

const suppress = (...args: string[]) => cli(server.config.databasePath, "suppress", ...args);
const listedCount = () => (server.db.sqlite.query("SELECT count(*) AS n FROM suppressions").get() as { n: number }).n;

let fileNo = 0;
async function csvFile(text: string): Promise<string> {
  const path = join(server.config.databasePath, `../suppress-${++fileNo}.csv`);
  await Bun.write(path, text);
  return path;
}

test("add, list and remove a number in any spelling; the running service refuses it at once", async () => {
  const phone = uniquePhone(); // "(212) 345-0001" style
  const e164 = `+1${phone.replace(/\D/g, "")}`;
  expect((await prePing(server, server.auth, { phone_number: phone })).status).toBe(200);
  expect(await suppress("add", phone, "--reason", "asked, by phone")).toEqual({ code: 0, out: `Added ${e164} to the suppression list.\n`, err: "" });
  expect((await prePing(server, server.auth, { phone_number: phone })).status).toBe(422);
  expect((await suppress("add", e164)).out).toBe(`${e164} is already on the suppression list; nothing changed.\n`);

  const table = await suppress("list");
  expect(table.out).toMatch(/^PHONE\s+ADDED\s+REASON$/m);
  expect(table.out).toMatch(new RegExp(`^\\${e164}\\s+\\d{4}-\\d\\d-\\d\\dT[\\d:]+Z\\s+asked, by phone$`, "m"));
  const entries = JSON.parse((await suppress("list", "--json")).out) as Record<string, unknown>[];
  expect(entries.find((e) => e.phone === e164)).toEqual({ phone: e164, reason: "asked, by phone", created_at: expect.stringMatching(/Z$/) });

  expect(await suppress("remove", phone.replace(/\D/g, ""))).toEqual({ code: 0, out: `Removed ${e164} from the suppression list.\n`, err: "" });
  expect((await prePing(server, server.auth, { phone_number: phone })).status).toBe(200);
  expect((await suppress("remove", phone)).out).toBe(`${e164} is not on the suppression list; nothing changed.\n`);
});

test("check says whether a number in any spelling is listed, since when and why; list --limit shows the first N", async () => {
  const phone = uniquePhone();
  const e164 = `+1${phone.replace(/\D/g, "")}`;
  expect(await suppress("check", phone)).toEqual({ code: 0, out: `${e164} is not on the suppression list.\n`, err: "" });
  await suppress("add", phone, "--reason", "asked twice");
  const listed = await suppress("check", phone.replace(/\D/g, ""));
  expect(listed.out).toMatch(new RegExp(`^\\${e164} is on the suppression list since \\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z: asked twice\\.\\n$`));
  expect(JSON.parse((await suppress("check", e164, "--json")).out)).toEqual({
    phone: e164,
    listed: true,
    reason: "asked twice",
    created_at: expect.stringMatching(/Z$/),
  });
  expect(JSON.parse((await suppress("check", "(646) 555-0199", "--json")).out)).toEqual({ phone: "+16465550199", listed: false });

  const another = uniquePhone();
  await suppress("add", another);
  const firstOne = await suppress("list", "--limit", "1");
  expect(firstOne.out.trim().split("\n")).toEqual([
    expect.stringMatching(/^PHONE\s+ADDED\s+REASON$/),
    expect.stringMatching(/^\+1\d{10}\s/),
    "(the first 1 by number; --limit N shows more)",
  ]);
  expect(JSON.parse((await suppress("list", "--limit", "1", "--json")).out)).toHaveLength(1);
  // Off the list again: the other tests count what they add.
  for (const listed of [phone, another]) await suppress("remove", listed);
});

test("a number that is not a US number is a usage error (exit 2)", async () => {
  expect(await suppress("add", "555-0100")).toEqual({ code: 2, out: "", err: 'Not a valid US phone number: "555-0100"\n' });
  expect(await suppress("remove", "12x")).toMatchObject({ code: 2 });
});

test("import: CRLF, a BOM, quoted reasons with commas and quotes; a second import changes nothing", async () => {
  const file = await csvFile('\uFEFFphone,reason\r\n(646) 555-0101,"moved, ""no"" calls"\r\n646.555.0102,\r\n\r\n+1 646 555 0101,again\r\n');
  const first = await suppress("import", file);
  expect(first).toMatchObject({ code: 0, err: "" });
  expect(first.out).toMatch(new RegExp(`^Imported ${file}: 3 rows, 2 added, 1 already listed \\([\\d.]+ s\\)\\.\\n$`));
  const reasons = server.db.sqlite.query("SELECT phone_e164, reason FROM suppressions WHERE phone_e164 LIKE '+1646555010_' ORDER BY 1").all();
  expect(reasons).toEqual([
    { phone_e164: "+16465550101", reason: 'moved, "no" calls' },
    { phone_e164: "+16465550102", reason: null },
  ]);
  const before = listedCount();
  expect((await suppress("import", file)).out).toContain(": 3 rows, 0 added, 3 already listed (");
  expect(listedCount()).toBe(before);
});

test("import: malformed rows are reported with their line numbers on stderr, exit 1, and nothing is imported", async () => {
  const before = listedCount();
  const file = await csvFile(["phone,reason", "(305) 555-0101,fine", "305-555,too short", "(305) 555-0102", ",no phone", "(305) 555-0103,fine"].join("\n"));
  expect(await suppress("import", file)).toEqual({
    code: 1,
    out: "",
    err: [
      'line 3: not a valid US phone number: "305-555"',
      "line 4: expected 2 columns, found 1",
      "line 5: missing phone",
      `Nothing was imported: ${file} has 3 malformed rows.`,
      "",
    ].join("\n"),
  });
  expect(listedCount()).toBe(before);
});

test("import: a missing file or a file without a usable header", async () => {
  expect(await suppress("import", "/nonexistent/list.csv")).toEqual({ code: 2, out: "", err: "No such file: /nonexistent/list.csv\n" });
  const noHeader = await suppress("import", await csvFile("2125550100,x\n"));
  expect(noHeader).toMatchObject({ code: 1, err: expect.stringContaining('line 1: unknown column "2125550100"') });
});

/** 200,000 distinct valid numbers: 13 area codes × 800 exchanges × enough line numbers. */
function bigCsv(rows: number): string {
  const areas = ["201", "212", "305", "312", "415", "512", "617", "702", "713", "718", "805", "917", "971"];
  const lines = ["phone,reason"];
  for (let i = 0; i < rows; i++) {
    const exchange = 200 + (Math.floor(i / areas.length) % 800);
    const line = String(Math.floor(i / (areas.length * 800))).padStart(4, "0");
    lines.push(`(${areas[i % areas.length]}) ${exchange}-${line},"bulk, list ${i % 10}"`);
  }
  return `${lines.join("\r\n")}\r\n`;
}

/** Runs the product on a pseudo-terminal (util-linux `script`), as an operator at a shell would. */
async function onTerminal(args: string[]): Promise<CliRun> {
  const command = [...productCommand(), ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  const child = Bun.spawn(["script", "-qec", command, "/dev/null"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, out, err };
}

test("import streams 200,000 rows in one go; in a pipe it prints only the summary", async () => {
  const file = await csvFile(bigCsv(200_000));
  const before = listedCount();
  const answer = await suppress("import", file);
  expect(answer).toMatchObject({ code: 0, err: "" });
  expect(answer.out).toMatch(/^Imported .*: 200,000 rows, 200,000 added, 0 already listed \([\d.]+ s\)\.\n$/);
  expect(listedCount()).toBe(before + 200_000);
}, 30_000);

test.skipIf(!Bun.which("script"))("import shows its progress on a terminal", async () => {
  const file = await csvFile(bigCsv(30_000));
  const answer = await onTerminal(["suppress", "import", file, "--database", server.config.databasePath]);
  expect(answer.code).toBe(0);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the terminal's erase-line sequence is what is checked
  expect(answer.out).toMatch(/\rReading suppress-\d+\.csv: [\d,]+ rows \(\d+%\)\x1b\[K/);
  expect(answer.out).toMatch(/Imported .*: 30,000 rows, [\d,]+ added, [\d,]+ already listed/);
});
