// `suppress import`: adds the numbers of a CSV file to the suppression list, all of them or none.
//
// The file is streamed once. Each row is checked and its E.164 number staged in a TEMP table (on
// disk, so millions of rows do not fill memory). Only when every row is good are the staged
// numbers copied into the list, by one INSERT … SELECT in one write transaction. So a malformed
// row, Ctrl-C or a crash leaves the list as it was, and the running service's writers wait only
// for that one statement (about 0.5 s per million numbers on our 2-core VM), not for the reading
// and checking of the file.
import type { Database } from "bun:sqlite";
import { stat } from "node:fs/promises";
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
/** One prepared multi-row INSERT stages this many rows: several times faster than a row per statement. */
const ROWS_PER_INSERT = 250;
const EXPECTED_HEADER = "expected a header row with phone and, optionally, reason";

interface Header {
  phone: number;
  reason: number | null;
  width: number;
}

interface StagedRow {
  line: number;
  e164: string;
  reason: string | null;
}

export async function importSuppressionCsv(
  sqlite: Database,
  path: string,
  options: { onProgress?: (progress: ImportProgress) => void; now?: number } = {},
): Promise<ImportResult> {
  const totalBytes = await fileSize(path);
  const problems: RowProblem[] = [];
  let problemCount = 0;
  const report = (line: number, error: string) => {
    if (++problemCount <= MAX_PROBLEMS_KEPT) problems.push({ line, error });
  };
  let bytesRead = 0;
  let rows = 0;
  let header: Header | null = null;
  let chunk: StagedRow[] = [];
  const staging = createStaging(sqlite);
  try {
    for await (const record of readCsvRecords(counted(Bun.file(path).stream(), (n) => (bytesRead += n)))) {
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
        staging.stage(chunk);
        chunk = [];
      }
    }
    if (!header && problemCount === 0) report(1, `the file is empty: ${EXPECTED_HEADER}`);
    if (problemCount > 0) return { kind: "malformed", problems, problemCount };
    staging.stage(chunk);
    const added = staging.copyIntoList(options.now ?? Date.now());
    return { kind: "imported", rows, added, alreadyListed: rows - added };
  } finally {
    staging.drop();
  }
}

async function fileSize(path: string): Promise<number> {
  const info = await stat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") throw new SuppressionError(`No such file: ${path}`);
    throw error;
  });
  if (!info.isFile()) throw new SuppressionError(`Not a file: ${path}`);
  return info.size;
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

function checkRow({ line, fields }: { line: number; fields: string[] }, header: Header): StagedRow | string {
  if (fields.length !== header.width) return `expected ${header.width} column${header.width === 1 ? "" : "s"}, found ${fields.length}`;
  const phone = fields[header.phone]!.trim();
  if (phone === "") return "missing phone";
  const e164 = e164OrNull(phone);
  if (e164 === null) return `not a valid US phone number: ${quoted(phone)}`;
  const reason = header.reason === null ? "" : fields[header.reason]!.trim();
  return { line, e164, reason: reason === "" ? null : reason };
}

function createStaging(sqlite: Database) {
  // On disk rather than in memory (openDatabase's default), so a huge file does not fill RAM.
  sqlite.run("PRAGMA temp_store = FILE");
  sqlite.run("DROP TABLE IF EXISTS temp.suppression_import");
  // Rows are appended as read (random-order inserts into a keyed table were 15x slower at 2M rows);
  // the index is sorted once at the end, so the copy reads the numbers in the list's key order.
  sqlite.run("CREATE TEMP TABLE suppression_import (line INTEGER NOT NULL, phone_e164 TEXT NOT NULL, reason TEXT)");
  const insertSql = (rows: number) => `INSERT INTO temp.suppression_import (line, phone_e164, reason) VALUES ${Array(rows).fill("(?, ?, ?)").join(", ")}`;
  const insertMany = sqlite.prepare<unknown, (string | number | null)[]>(insertSql(ROWS_PER_INSERT));
  const insertOne = sqlite.prepare<unknown, [number, string, string | null]>(insertSql(1));
  return {
    // A temp table belongs to this connection alone: staging takes no lock the service could wait on.
    stage: sqlite.transaction((rows: StagedRow[]) => {
      let i = 0;
      for (; i + ROWS_PER_INSERT <= rows.length; i += ROWS_PER_INSERT) insertMany.run(...rows.slice(i, i + ROWS_PER_INSERT).flatMap((row) => [row.line, row.e164, row.reason]));
      for (; i < rows.length; i++) insertOne.run(rows[i]!.line, rows[i]!.e164, rows[i]!.reason);
    }),
    /** Copies the staged numbers not yet listed, in one write transaction; returns how many were added. */
    copyIntoList(now: number): number {
      // Built before the write transaction, so the service never waits for this sort.
      sqlite.run("CREATE INDEX temp.suppression_import_order ON suppression_import (phone_e164, line, reason)");
      // In line order within a number, so a number listed twice in the file keeps its first reason.
      const copy = sqlite.prepare<unknown, [number]>(`
        INSERT OR IGNORE INTO main.suppressions (phone_e164, reason, created_at)
        SELECT phone_e164, reason, ?1 FROM temp.suppression_import ORDER BY phone_e164, line`);
      try {
        return sqlite.transaction(() => copy.run(now).changes).immediate();
      } finally {
        copy.finalize();
      }
    },
    drop() {
      for (const statement of [insertMany, insertOne]) statement.finalize();
      sqlite.run("DROP TABLE IF EXISTS temp.suppression_import");
    },
  };
}
