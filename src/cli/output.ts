// Human-readable output: aligned tables and key/value blocks, with stored values made safe for a
// terminal. `--json` output uses the same snake_case names as the database and ISO 8601 UTC times.
import { TIME_COLUMN } from "../db/schema.ts";

/** Table cells longer than this are cut with "…" (except the last column); show and --json give all. */
const MAX_CELL = 60;

const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Escapes control characters. Values come from vendors and callback receivers; printed raw, an
 * escape sequence could move the cursor, recolour or retitle the operator's terminal.
 */
export function printable(value: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this escapes
  return value.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/** ISO 8601 UTC to the millisecond; null stays null. */
export function isoTime(ms: number): string;
export function isoTime(ms: number | null): string | null;
export function isoTime(ms: number | null): string | null {
  return ms === null ? null : new Date(ms).toISOString();
}

/** A time for a table: ISO 8601 UTC to the second, "-" when unset. */
export const tableTime = (ms: number | null): string => isoTime(ms)?.replace(/\.\d{3}Z$/, "Z") ?? "-";

export const count = (n: number): string => n.toLocaleString("en-US");

const clip = (text: string) => (text.length > MAX_CELL ? `${text.slice(0, MAX_CELL - 1)}…` : text);

/** Columns padded to their widest cell, two spaces apart; the last column is neither cut nor padded. */
export function renderTable(headers: string[], rows: string[][]): string[] {
  const last = headers.length - 1;
  const cells = [headers, ...rows.map((row) => row.map((cell, i) => (i < last ? clip(printable(cell)) : printable(cell))))];
  const widths = headers.map((_, i) => cells.reduce((widest, row) => Math.max(widest, row[i]!.length), 0));
  return cells.map((row) =>
    row
      .map((cell, i) => (i < last ? cell.padEnd(widths[i]!) : cell))
      .join("  ")
      .trimEnd(),
  );
}

/** "  name   value" lines, names aligned; null values show as "-". */
export function renderFields(fields: [string, string | number | boolean | null][], indent = "  "): string[] {
  const width = fields.reduce((widest, [name]) => Math.max(widest, name.length), 0);
  return fields.map(([name, value]) => `${indent}${name.padEnd(width)}  ${value === null ? "-" : printable(String(value))}`.trimEnd());
}

/** A stored row with its time columns as ISO 8601 strings, for show and --json. */
export function withIsoTimes(row: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).map(([name, value]) => [name, TIME_COLUMN.test(name) && typeof value === "number" ? isoTime(value) : value]));
}

export const json = (value: unknown): string => JSON.stringify(value, null, 2);

/** How a list command prints its items: `--json`, a message when there are none, or a table. */
export interface Listing<T> {
  asJson: boolean;
  asJsonValue: (item: T) => unknown;
  empty: string;
  headers: string[];
  row: (item: T) => string[];
}

export function renderListing<T>(items: T[], listing: Listing<T>): string[] {
  if (listing.asJson) return [json(items.map(listing.asJsonValue))];
  if (items.length === 0) return [listing.empty];
  return renderTable(listing.headers, items.map(listing.row));
}
