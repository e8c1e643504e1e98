// CSV import into the suppression list: all rows or none, idempotent, counted, with every
// problem's line number.
import { storeOn } from "../../src/store/sqlite.ts";
import type { OperatorDatabase } from "../../src/store/index.ts";
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { addSuppression, listSuppressions } from "../../src/suppression/index.ts";
import { importSuppressionCsv, MAX_PROBLEMS_KEPT, type ImportProgress } from "../../src/suppression/import.ts";

let dir: string;
let database: DatabaseHandle;
let fileNo = 0;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lead-ingress-import-"));
  database = openDatabase(join(dir, "test.db"));
});
afterEach(() => {
  database.close();
  rmSync(dir, { recursive: true, force: true });
});

async function csvFile(text: string): Promise<string> {
  const path = join(dir, `import-${++fileNo}.csv`);
  await Bun.write(path, text);
  return path;
}

const listed = async () => (await listSuppressions(storeOn(database.db))).map((s) => [s.phoneE164, s.reason]);
const onDatabase = (): OperatorDatabase => ({ kind: "sqlite", store: storeOn(database.db), connection: database });

test("adds every number in E.164; numbers already listed or repeated in the file are counted, not changed", async () => {
  await addSuppression(storeOn(database.db), "212-555-0100", "from before", "test");
  const file = await csvFile("Reason , PHONE\nnew,415 555 0199\nagain,(212) 555-0100\n,+1 718 555 0100\nrepeat,415.555.0199\n");
  expect(await importSuppressionCsv(onDatabase(), file, "test")).toEqual({ kind: "imported", rows: 4, added: 2, alreadyListed: 2 });
  expect(await listed()).toEqual([
    ["+12125550100", "from before"],
    ["+14155550199", "new"],
    ["+17185550100", null],
  ]);
  expect(await importSuppressionCsv(onDatabase(), file, "test")).toEqual({ kind: "imported", rows: 4, added: 0, alreadyListed: 4 });
});

test("a file with a phone column only, or a header only, is fine", async () => {
  expect(await importSuppressionCsv(onDatabase(), await csvFile("phone\n2125550100\n"), "test")).toMatchObject({ kind: "imported", added: 1 });
  expect(await importSuppressionCsv(onDatabase(), await csvFile("phone,reason\n"), "test")).toEqual({ kind: "imported", rows: 0, added: 0, alreadyListed: 0 });
});

test("one malformed row anywhere → every problem reported by line, and nothing imported", async () => {
  const file = await csvFile(
    ["phone,reason", "2125550100,fine", "555-0100,short", "2125550101", ",no phone", '"2125550102","x"y', "2125550103,fine,extra"].join("\n"),
  );
  expect(await importSuppressionCsv(onDatabase(), file, "test")).toEqual({
    kind: "malformed",
    problemCount: 5,
    problems: [
      { line: 3, error: 'not a valid US phone number: "555-0100"' },
      { line: 4, error: "expected 2 columns, found 1" },
      { line: 5, error: "missing phone" },
      { line: 6, error: "text after the closing quote of field 2" },
      { line: 7, error: "expected 2 columns, found 3" },
    ],
  });
  expect(await listed()).toEqual([]);
});

test("a bad header is reported at line 1 and stops the import", async () => {
  const cases: [string, string][] = [
    ["number,reason\n2125550100,x\n", 'unknown column "number"'],
    ["reason\nx\n", "no phone column"],
    ["phone,phone\n", "a column is named twice"],
    ["", "the file is empty"],
  ];
  for (const [text, error] of cases) {
    expect(await importSuppressionCsv(onDatabase(), await csvFile(text), "test")).toEqual({
      kind: "malformed",
      problemCount: 1,
      problems: [{ line: 1, error: expect.stringContaining(error) }],
    });
  }
  expect(await listed()).toEqual([]);
});

test("problems past the first hundred are counted, not kept", async () => {
  const file = await csvFile(`phone\n${"123\n".repeat(MAX_PROBLEMS_KEPT + 50)}`);
  const result = await importSuppressionCsv(onDatabase(), file, "test");
  expect(result).toMatchObject({ kind: "malformed", problemCount: MAX_PROBLEMS_KEPT + 50 });
  expect(result.kind === "malformed" && result.problems.length).toBe(MAX_PROBLEMS_KEPT);
});

test("reports progress while it reads, up to the whole file", async () => {
  const lines = Array.from({ length: 25_000 }, (_, i) => `+1212${String(2_000_000 + i)}`);
  const file = await csvFile(`phone\n${lines.join("\n")}\n`);
  const seen: ImportProgress[] = [];
  expect(await importSuppressionCsv(onDatabase(), file, "test", { onProgress: (p) => seen.push(p) })).toMatchObject({ kind: "imported", added: 25_000 });
  expect(seen.map((p) => p.rows)).toEqual([10_000, 20_000]);
  expect(seen.every((p) => p.bytesRead > 0 && p.bytesRead <= p.totalBytes)).toBe(true);
});

test("staging holds no lock on the database: another connection writes while an import reads", async () => {
  const other = openDatabase(join(dir, "test.db"));
  const lines = Array.from({ length: 30_000 }, (_, i) => `+1415${String(2_000_000 + i)}`);
  const file = await csvFile(`phone\n${lines.join("\n")}\n`);
  other.sqlite.run("PRAGMA busy_timeout = 0"); // a held lock would make its writes fail at once
  let writes = 0;
  await importSuppressionCsv(onDatabase(), file, "test", {
    onProgress: () => void addSuppression(storeOn(other.db), `+1212555${1000 + writes++}`, null, "test"),
  });
  other.close();
  expect(writes).toBe(3);
  expect((await listed()).filter(([phone]) => phone!.startsWith("+1212555"))).toHaveLength(3);
});

test("a missing file is an error before anything is touched", async () => {
  expect(importSuppressionCsv(onDatabase(), join(dir, "nope.csv"), "test")).rejects.toThrow("No such file");
});
