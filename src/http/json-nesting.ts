// How deeply a JSON text nests objects and arrays, measured on the text before it is parsed
// (docs/contract.md §4). The body's own object is level 1: `{"extra_data":{"a":[1]}}` nests 3
// levels, the most brackets open at once. Brackets inside strings do not count.
//
// On the text, not the parsed value: one pass that allocates nothing and stops at the first level
// past the limit, so a hostile body is refused before JSON.parse builds it (parsing deeply nested
// arrays costs several times what a flat body of the same size does). A loop, never recursion, so
// any depth is measured without growing the stack.

/** The most levels of objects and arrays a request body may nest. */
export const MAX_BODY_NESTING = 32;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * Whether `text` opens more than `limit` objects and arrays at once. Exact for valid JSON; for
 * other text it answers something, and JSON.parse refuses that text anyway.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = closingQuote(text, i);
      if (i < 0) return false;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}

/**
 * The index of the quote that ends the string opened at `open`, or -1 when none does. A string's
 * bulk is skipped with indexOf: a quote ends it unless an odd run of backslashes precedes it.
 */
function closingQuote(text: string, open: number): number {
  let at = open;
  for (;;) {
    at = text.indexOf('"', at + 1);
    if (at < 0) return -1;
    let backslashes = 0;
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return at;
  }
}
