// A streaming CSV reader (RFC 4180) for operator files: fields separated by commas, optionally in
// double quotes (a quoted field may hold commas, doubled quotes and line breaks), records ending in
// LF or CRLF. Memory stays bounded: only the current record is held, and a record is capped.

/** A record, or why it could not be read; `line` is the 1-based line where the record starts. */
export type CsvRecord = { line: number; fields: string[] } | { line: number; error: string };

/** The longest record accepted; past it the file is not a CSV of short rows, and reading stops. */
export const MAX_RECORD_CHARS = 64 * 1024;

type Parsed = { kind: "fields"; fields: string[] } | { kind: "open" } | { kind: "malformed"; error: string };

/** Splits one record's text into fields; "open" when a quoted field runs past the end of the text. */
export function parseCsvFields(text: string): Parsed {
  if (!text.includes('"')) return { kind: "fields", fields: text.split(",") };
  const fields: string[] = [];
  let i = 0;
  while (i <= text.length) {
    if (text[i] !== '"') {
      // Unquoted: up to the next comma. A stray quote inside is kept as it is.
      const comma = text.indexOf(",", i);
      const end = comma < 0 ? text.length : comma;
      fields.push(text.slice(i, end));
      i = end + 1;
      continue;
    }
    let value = "";
    let from = i + 1;
    for (;;) {
      const quote = text.indexOf('"', from);
      if (quote < 0) return { kind: "open" };
      value += text.slice(from, quote);
      if (text[quote + 1] !== '"') {
        i = quote + 1;
        break;
      }
      value += '"';
      from = quote + 2; // each pass moves past a quote, so this ends
    }
    fields.push(value);
    if (i < text.length && text[i] !== ",") return { kind: "malformed", error: `text after the closing quote of field ${fields.length}` };
    i++;
  }
  return { kind: "fields", fields };
}

interface OpenRecord {
  line: number;
  text: string;
}

/** Joins physical lines into records: a quoted field may continue on the next line. */
function createRecordAssembler() {
  let lineNo = 0;
  let open: OpenRecord | null = null;
  return {
    lineNo: () => lineNo,
    /** The record still waiting for its closing quote, if any. */
    open: () => open,
    /** Takes one line (without its LF): a finished record, or null (a blank line, or the record goes on). */
    push(rawLine: string): CsvRecord | null {
      lineNo++;
      const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
      const record: OpenRecord = open ? { line: open.line, text: `${open.text}\n${line}` } : { line: lineNo, text: line };
      open = null;
      if (record.text === "") return null;
      const parsed = parseCsvFields(record.text);
      if (parsed.kind === "fields") return { line: record.line, fields: parsed.fields };
      if (parsed.kind === "malformed") return { line: record.line, error: parsed.error };
      open = record;
      return null;
    },
  };
}

const tooLong = (line: number): CsvRecord => ({ line, error: `record longer than ${MAX_RECORD_CHARS} characters; reading stopped here` });

/** Reads CSV records from a byte stream; blank lines are skipped. A leading UTF-8 BOM is dropped. */
export async function* readCsvRecords(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<CsvRecord> {
  const decoder = new TextDecoder();
  const records = createRecordAssembler();
  let buffered = "";
  for await (const chunk of chunks) {
    buffered += decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let newline = buffered.indexOf("\n"); newline >= 0; newline = buffered.indexOf("\n", from)) {
      const record = records.push(buffered.slice(from, newline));
      from = newline + 1;
      if (record) yield record;
      const open = records.open();
      if (open && open.text.length > MAX_RECORD_CHARS) return yield tooLong(open.line);
    }
    buffered = buffered.slice(from);
    if (buffered.length > MAX_RECORD_CHARS) return yield tooLong(records.lineNo() + 1);
  }
  buffered += decoder.decode();
  const last = buffered === "" ? null : records.push(buffered);
  if (last) yield last;
  const unclosed = records.open();
  if (unclosed) yield { line: unclosed.line, error: "quoted field is never closed" };
}
