// The suppression list on the Suppression page, against the real server on either backend: listed
// in order a hundred a page, "Next" walking every number once; narrowed to the numbers starting
// with digits typed in any spelling; exported as CSV (all of the selection, not a page).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { numberPrefixRange } from "../../src/console/suppression-list.ts";
import { op } from "../../src/db/script.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";
import { addOperator, signIn, type SignedIn } from "./console-client.ts";

let server: ApiTestServer;
let operator: SignedIn;
/** 150 numbers of 212 555 and 100 of 312 555, in order. */
const LISTED = [
  ...Array.from({ length: 150 }, (_, i) => `+1212555${String(1000 + i)}`),
  ...Array.from({ length: 100 }, (_, i) => `+1312555${String(2000 + i)}`),
];

beforeAll(async () => {
  server = await startApiTestServer({ consolePort: 0 });
  await addOperator(server.store);
  operator = await signIn(server.consoleUrl!);
  await server.store.write(function* (t) {
    for (const [i, phoneE164] of LISTED.entries()) yield* op(t.suppressions.add({ phoneE164, reason: i === 0 ? "=asked, by phone" : null, createdAt: i }));
  });
});
afterAll(() => server.stop());

async function listed(path: string): Promise<{ numbers: string[]; next: string | null; text: string }> {
  const page = await operator.get(path);
  expect(page.status).toBe(200);
  const numbers = [...page.text.matchAll(/<tr><td class="mono">(\+\d+)<\/td>/g)].map((match) => match[1]!);
  const next = /<a href="([^"]+)" rel="next">Next<\/a>/.exec(page.text)?.[1]?.replaceAll("&amp;", "&") ?? null;
  return { numbers, next, text: page.text };
}

test("the list, a hundred a page in order; Next walks every number once", async () => {
  const walked: string[] = [];
  let path: string | null = "/suppression";
  let pages = 0;
  while (path) {
    const page = await listed(path);
    expect(page.numbers.length).toBeLessThanOrEqual(100);
    walked.push(...page.numbers);
    path = page.next;
    pages++;
  }
  expect(pages).toBe(3);
  expect(walked).toEqual(LISTED);
});

test("numbers starting with digits typed in any spelling; what cannot begin a US number is said", async () => {
  const first = await listed(`/suppression?starts=${encodeURIComponent("(312) 555-200")}`);
  expect(first.numbers).toEqual(LISTED.slice(150, 160));
  expect((await listed(`/suppression?starts=${encodeURIComponent("1 212 555 1149")}`)).numbers).toEqual(["+12125551149"]);
  const wide = await listed("/suppression?starts=212");
  expect(wide.numbers).toEqual(LISTED.slice(0, 100));
  expect(wide.next).toMatch(/^\/suppression\?starts=212&after=%2B12125551099#list$/);
  expect((await listed(wide.next!)).numbers).toEqual(LISTED.slice(100, 150));
  expect((await listed("/suppression?starts=415")).text).toContain("No listed number starts so.");
  expect((await listed("/suppression?starts=abc")).text).toContain("Not the beginning of a US phone number: abc");
});

test("Export CSV downloads the whole selection, a formula-like reason made text", async () => {
  const all = await operator.get("/suppression.csv");
  expect([all.status, all.headers.get("content-type"), all.headers.get("content-disposition")]).toEqual([
    200,
    "text/csv; charset=utf-8",
    'attachment; filename="suppression-list.csv"',
  ]);
  const lines = all.text.split("\r\n");
  expect(lines[0]).toBe("phone_e164,reason,created_at");
  expect(lines[1]).toBe(`'+12125551000,"'=asked, by phone",1970-01-01T00:00:00.000Z`);
  expect(lines.slice(1, -1).map((line) => line.split(",")[0]!.slice(1))).toEqual(LISTED);
  const some = await operator.get("/suppression.csv?starts=312");
  expect(some.text.trim().split("\r\n")).toHaveLength(101);
  expect((await operator.get("/suppression.csv?starts=0")).status).toBe(400);
});

test("a typed beginning is a range of E.164 keys, bounded by the next one of as many digits", () => {
  expect(numberPrefixRange("212-555")).toEqual({ from: "+1212555", before: "+1212556" });
  expect(numberPrefixRange("1 (212) 559")).toEqual({ from: "+1212559", before: "+1212560" });
  expect(numberPrefixRange("999")).toEqual({ from: "+1999", before: "+2" });
  expect(numberPrefixRange("1")).toEqual({ from: "+1", before: "+2" });
  expect(numberPrefixRange("2125550142")).toEqual({ from: "+12125550142", before: "+12125550143" });
  for (const refused of ["012", "1012", "+", "21255501420", "abc"]) expect([refused, numberPrefixRange(refused)]).toEqual([refused, null]);
});
