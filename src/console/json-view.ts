// Stored values as the console and the CLI show them, bounded in size whatever was stored: a lead
// taken before the body's nesting limit (or under a larger body limit) may hold JSON nested tens
// of thousands of levels deep, and `JSON.stringify(…, null, 2)` of that grows with the square of
// its depth. So stored JSON is indented from its text, in one loop that never recurses: up to
// INDENTED_LEVELS levels, deeper parts on one line, and the view stops at its character budget
// with a note of what it left out. The work done is bounded by the budget, not by the value.
import { MAX_BODY_NESTING } from "../http/json-nesting.ts";

/** A view of a stored value: its text, and how many bytes of the stored value it leaves out. */
export interface View {
  text: string;
  omittedBytes: number;
}

/** Levels indented: every level a body may have today; deeper (older) values go on one line. */
export const INDENTED_LEVELS = MAX_BODY_NESTING;

/** A stored field's view (extra_data, in practice: a lead's other fields are at most 2,048 characters). */
export const FIELD_CHARS = 4 * 1024;

/** The note that ends a cut view. */
export const truncationNote = (omittedBytes: number): string => `… truncated, ${omittedBytes.toLocaleString("en-US")} more bytes not shown`;

/** The view's text, with the note on a line of its own when it was cut. */
export const viewText = (view: View): string => (view.omittedBytes > 0 ? `${view.text}\n${truncationNote(view.omittedBytes)}` : view.text);

const omitted = (text: string, from: number): number => (from >= text.length ? 0 : Buffer.byteLength(text.slice(from)));

/** `text` cut after `maxChars` characters (UTF-16 units, never between a surrogate pair's halves). */
export function clipped(text: string, maxChars: number): View {
  if (text.length <= maxChars) return { text, omittedBytes: 0 };
  const end = isLowSurrogate(text.charCodeAt(maxChars)) ? maxChars - 1 : maxChars;
  return { text: text.slice(0, end), omittedBytes: omitted(text, end) };
}

const isLowSurrogate = (unit: number) => unit >= 0xdc00 && unit <= 0xdfff;

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const STRUCTURE = new Set(["{", "}", "[", "]", ",", ":", ...WHITESPACE]);
const CLOSE_OF: Record<string, string> = { "{": "}", "[": "]" };

/**
 * JSON text indented as `JSON.stringify(value, null, 2)` would indent it (the values spelled as
 * stored), at most `maxChars` characters of it. Text that is not a JSON object or array is clipped.
 */
export function indentedJson(text: string, maxChars: number): View {
  const first = nextToken(text, 0);
  if (text[first] !== "{" && text[first] !== "[") return clipped(text, maxChars);
  const out: string[] = [];
  let room = maxChars;
  /** Writes the piece made from the stored text at `from`; when it does not fit, answers the view, cut. */
  const write = (piece: string, from: number, verbatim = false): View | null => {
    if (piece.length <= room) {
      out.push(piece);
      room -= piece.length;
      return null;
    }
    // A piece copied as stored is shown up to the budget; a piece of layout is left out whole.
    const shown = verbatim ? clipped(piece, room).text : "";
    out.push(shown);
    return { text: out.join(""), omittedBytes: omitted(text, from + shown.length) };
  };
  let depth = 0;
  /** A line break indented `indent` levels, inside a container of level `depth`: none past INDENTED_LEVELS. */
  const newline = (indent = depth) => (depth <= INDENTED_LEVELS ? `\n${"  ".repeat(Math.max(indent, 0))}` : "");
  let i = first;
  while (i < text.length) {
    const c = text[i]!;
    let piece: string;
    let next = i + 1;
    let verbatim = false;
    if (c === '"' || !STRUCTURE.has(c)) {
      next = c === '"' ? stringEnd(text, i) : scalarEnd(text, i);
      piece = text.slice(i, next);
      verbatim = true;
    } else if (c === "{" || c === "[") {
      const after = nextToken(text, i + 1);
      if (text[after] === CLOSE_OF[c]) {
        piece = c + CLOSE_OF[c];
        next = after + 1;
      } else {
        depth++;
        piece = c + newline();
      }
    } else if (c === "}" || c === "]") {
      piece = newline(depth - 1) + c;
      depth--;
    } else if (c === ",") {
      piece = `,${newline()}`;
    } else if (c === ":") {
      piece = depth <= INDENTED_LEVELS ? ": " : ":";
    } else {
      piece = "";
    }
    const end = write(piece, i, verbatim);
    if (end) return end;
    i = next;
  }
  return { text: out.join(""), omittedBytes: 0 };
}

/** The index after a number or literal (`true`, `null`) starting at `from`. */
function scalarEnd(text: string, from: number): number {
  let at = from + 1;
  while (at < text.length && !STRUCTURE.has(text[at]!) && text[at] !== '"') at++;
  return at;
}

/** The index after the string that opens at `open` (its closing quote included), or the text's end. */
function stringEnd(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return text.length;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return at + 1;
  }
}

/** The index of the first character at or after `from` that is not JSON whitespace. */
function nextToken(text: string, from: number): number {
  let at = from;
  while (at < text.length && WHITESPACE.has(text[at]!)) at++;
  return at;
}
