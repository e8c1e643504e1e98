// `suppress import`: adds the numbers of a CSV file to the suppression list, all of them or none.
//
// The file is streamed once. Each row is checked and its E.164 number staged in a TEMP table (on
// disk, so millions of rows do not fill memory; on PostgreSQL in the importing session). Only when every row is good are the staged
// numbers copied into the list, by one INSERT … SELECT in one write transaction. So a malformed
// row, Ctrl-C or a crash leaves the list as it was, and the running service's writers wait only
// for that one statement (bench/README.md, "Behind the code"), not for the reading and checking of
// the file.
import { stat } from "node:fs/promises";
import { basename } from "node:path";
import { auditEntry } from "../store/audit/index.ts";
import type { StagedSuppression } from "../store/suppressions/index.ts";
import type { OperatorDatabase } from "../store/index.ts";
import { pgSuppressionImport } from "../store/suppressions/pg-import.ts";
import { sqliteSuppressionImport } from "../store/suppressions/sqlite-import.ts";
import { readCsvRecords } from "./csv.ts";
import { e164OrNull, SuppressionError } from "./index.ts";

export interface RowProblem {
  line: number;
  error: string;
}

export type ImportResult =
  | { kind: "imported"; rows: number; added: number; alreadyListed: number }
  | { kind: "malformed"; problems: RowProblem[]; problemCount: number };

export interface ImportProgress {
  bytesRead: number;
  totalBytes: number;
  rows: number;
}

/** Problems kept for the report; further ones are only counted. */
export const MAX_PROBLEMS_KEPT = 100;
/** Rows staged per (temp-only) transaction; also how often progress is reported. */
const STAGE_CHUNK_ROWS = 10_000;
const EXPECTED_HEADER = "expected a header row with phone and, optionally, reason";

interface Header {
  phone: number;
  reason: number | null;
  width: number;
}

export interface ImportOptions {
  onProgress?: (progress: ImportProgress) => void;
  now?: number;
}

/** `suppress import FILE`: the file at `path`, audited under the file's name. */
export async function importSuppressionCsv(database: OperatorDatabase, path: string, actor: string, options: ImportOptions = {}): Promise<ImportResult> {
  await checkIsFile(path);
  return importSuppressionFile(database, Bun.file(path), basename(path), actor, options);
}

/**
 * A CSV's bytes however they came (a file on disk, the console's upload): the same checks, the
 * same all-or-none import, audited as `subject` (the file's name) with its counts in the same
 * transaction.
 */
export async function importSuppressionFile(
  database: OperatorDatabase,
  file: Blob,
  subject: string,
  actor: string,
  options: ImportOptions = {},
): Promise<ImportResult> {
  const totalBytes = file.size;
  const problems: RowProblem[] = [];
  let problemCount = 0;
  const report = (line: number, error: string) => {
    if (++problemCount <= MAX_PROBLEMS_KEPT) problems.push({ line, error });
  };
  let bytesRead = 0;
  let rows = 0;
  let header: Header | null = null;
  let chunk: StagedSuppression[] = [];
  const staging = database.kind === "sqlite" ? sqliteSuppressionImport(database.connection.sqlite) : await pgSuppressionImport(database.connection);
  try {
    for await (const record of readCsvRecords(counted(file.stream(), (n) => (bytesRead += n)))) {
      if ("error" in record) {
        report(record.line, record.error);
        continue;
      }
      if (!header) {
        const parsed = readHeader(record.fields);
        if (typeof parsed === "string") {
          report(record.line, parsed);
          break; // without a header no row can be understood
        }
        header = parsed;
        continue;
      }
      const row = checkRow(record, header);
      if (typeof row === "string") {
        report(record.line, row);
        continue;
      }
      if (++rows % STAGE_CHUNK_ROWS === 0) options.onProgress?.({ bytesRead, totalBytes, rows });
      // After a problem nothing will be imported; the rest is read only to report every problem.
      if (problemCount > 0) continue;
      chunk.push(row);
      if (chunk.length === STAGE_CHUNK_ROWS) {
        await staging.stage(chunk);
        chunk = [];
      }
    }
    if (!header && problemCount === 0) report(1, `the file is empty: ${EXPECTED_HEADER}`);
    if (problemCount > 0) return { kind: "malformed", problems, problemCount };
    await staging.stage(chunk);
    const now = options.now ?? Date.now();
    const auditOf = (added: number) =>
      auditEntry({ actor, action: "suppression.import", subject, detail: `${rows} rows, ${added} added, ${rows - added} already listed` }, now);
    const added = await staging.copyIntoList(now, auditOf);
    return { kind: "imported", rows, added, alreadyListed: rows - added };
  } finally {
    await staging.drop();
  }
}

async function checkIsFile(path: string): Promise<void> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") throw new SuppressionError(`No such file: ${path}`);
    throw error;
  });
  if (!info.isFile()) throw new SuppressionError(`Not a file: ${path}`);
}

async function* counted(chunks: AsyncIterable<Uint8Array>, onBytes: (n: number) => void): AsyncGenerator<Uint8Array> {
  for await (const chunk of chunks) {
    onBytes(chunk.byteLength);
    yield chunk;
  }
}

/** Column names are trimmed and case-insensitive; unknown or repeated ones are refused, not guessed at. */
function readHeader(fields: string[]): Header | string {
  const names = fields.map((field) => field.trim().toLowerCase());
  const unknown = names.filter((name) => name !== "phone" && name !== "reason");
  if (unknown.length > 0) return `unknown column ${unknown.map((name) => JSON.stringify(name)).join(", ")}: ${EXPECTED_HEADER}`;
  if (new Set(names).size !== names.length) return `a column is named twice: ${EXPECTED_HEADER}`;
  const phone = names.indexOf("phone");
  if (phone < 0) return `no phone column: ${EXPECTED_HEADER}`;
  const reason = names.indexOf("reason");
  return { phone, reason: reason < 0 ? null : reason, width: names.length };
}

const quoted = (value: string) => JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);

function checkRow({ line, fields }: { line: number; fields: string[] }, header: Header): StagedSuppression | string {
  if (fields.length !== header.width) return `expected ${header.width} column${header.width === 1 ? "" : "s"}, found ${fields.length}`;
  const phone = fields[header.phone]!.trim();
  if (phone === "") return "missing phone";
  const e164 = e164OrNull(phone);
  if (e164 === null) return `not a valid US phone number: ${quoted(phone)}`;
  const reason = header.reason === null ? "" : fields[header.reason]!.trim();
  return { line, e164, reason: reason === "" ? null : reason };
}
