// The streaming CSV reader: quoting, line endings, records split across chunks at any byte, and
// bounded memory on files that are not CSV at all.
import { expect, test } from "bun:test";
import { MAX_RECORD_CHARS, parseCsvFields, readCsvRecords, type CsvRecord } from "../../src/suppression/csv.ts";

/** The text as a stream cut into chunks of `size` bytes (1 splits every CRLF and multi-byte character). */
async function* chunked(text: string, size: number): AsyncGenerator<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function read(text: string, size = 1 << 16): Promise<CsvRecord[]> {
  return Array.fromAsync(readCsvRecords(chunked(text, size)));
}

test("fields: plain, quoted with commas and doubled quotes, empty, and a stray quote inside an unquoted field", () => {
  expect(parseCsvFields("a,b,c")).toEqual({ kind: "fields", fields: ["a", "b", "c"] });
  expect(parseCsvFields('"212, ext","say ""no"""')).toEqual({ kind: "fields", fields: ["212, ext", 'say "no"'] });
  expect(parseCsvFields(',"",')).toEqual({ kind: "fields", fields: ["", "", ""] });
  expect(parseCsvFields('2125550123,6" tall')).toEqual({ kind: "fields", fields: ["2125550123", '6" tall'] });
  expect(parseCsvFields('"open, still')).toEqual({ kind: "open" });
  expect(parseCsvFields('"closed"then,x')).toEqual({ kind: "malformed", error: "text after the closing quote of field 1" });
});

const SAMPLE = '\uFEFFphone,reason\r\n2125550123,"moved, no calls"\r\n\r\n4155550199,"line one\r\nline two"\n7185550100,café ☕\n';

test("records carry their first line's number; CRLF, blank lines, a BOM and quoted line breaks are handled", async () => {
  expect(await read(SAMPLE)).toEqual([
    { line: 1, fields: ["phone", "reason"] },
    { line: 2, fields: ["2125550123", "moved, no calls"] },
    { line: 4, fields: ["4155550199", "line one\nline two"] },
    { line: 6, fields: ["7185550100", "café ☕"] },
  ]);
});

test("the same records whatever the chunk boundaries, even inside a CRLF or a multi-byte character", async () => {
  const whole = await read(SAMPLE);
  for (const size of [1, 2, 3, 5, 7, 64]) expect(await read(SAMPLE, size)).toEqual(whole);
});

test("a last line without a newline is read; a quote never closed is reported at the line it opened", async () => {
  expect(await read("phone\n2125550123")).toEqual([
    { line: 1, fields: ["phone"] },
    { line: 2, fields: ["2125550123"] },
  ]);
  expect(await read('phone,reason\n2125550123,"never closed\nmore\n')).toEqual([
    { line: 1, fields: ["phone", "reason"] },
    { line: 2, error: "quoted field is never closed" },
  ]);
});

test("memory stays bounded: an endless line or an endless quoted field stops reading with an error", async () => {
  const endlessLine = await read(`phone\n${"9".repeat(MAX_RECORD_CHARS + 10)}`, 4096);
  expect(endlessLine.at(-1)).toEqual({ line: 2, error: expect.stringContaining("record longer than") });
  const endlessQuote = await read(`phone\n"${"x\n".repeat(MAX_RECORD_CHARS)}`, 4096);
  expect(endlessQuote).toHaveLength(2);
  expect(endlessQuote[1]).toEqual({ line: 2, error: expect.stringContaining("reading stopped") });
});
