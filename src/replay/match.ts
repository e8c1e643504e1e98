// Matching an answer against a fixture's expectation: exact JSON equality (same keys, same array
// lengths, same values), except where the expectation holds a matcher such as "{{uuid}}".
import type { Json } from "./fixture.ts";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ISO_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z$/;

type Test = (value: unknown) => boolean;

const NAMED: Record<string, Test> = {
  "{{any}}": () => true,
  "{{string}}": (value) => typeof value === "string",
  "{{number}}": (value) => typeof value === "number",
  "{{uuid}}": (value) => typeof value === "string" && UUID.test(value),
  "{{iso-date}}": (value) => typeof value === "string" && ISO_DATE.test(value) && !Number.isNaN(Date.parse(value)),
};

const REGEX = /^\{\{regex:(.+)\}\}$/s;

/** A matcher stands alone as a whole string value: "{{uuid}}", "{{regex:^v1,.+$}}". */
export function isMatcher(value: unknown): boolean {
  return typeof value === "string" && (Object.hasOwn(NAMED, value) || REGEX.test(value));
}

function matcherTest(matcher: string): Test {
  const named = NAMED[matcher];
  if (named) return named;
  // The pattern must match the whole value: "{{regex:\\d+}}" does not pass "a1".
  const pattern = new RegExp(`^(?:${REGEX.exec(matcher)![1]})$`, "s");
  return (value) => typeof value === "string" && pattern.test(value);
}

/** Does `actual` satisfy `expected` (a literal or a matcher)? For header values. */
export function matchesText(expected: string, actual: string): boolean {
  return isMatcher(expected) ? matcherTest(expected)(actual) : expected === actual;
}

/**
 * The first difference between the expectation and the actual value, as "where: what", or null
 * when they match. `where` names the position: body.message[0].error.
 */
export function findMismatch(expected: Json, actual: unknown, where = "body"): string | null {
  if (typeof expected === "string" && isMatcher(expected)) return matcherTest(expected)(actual) ? null : `${where}: expected ${expected}, got ${show(actual)}`;
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return `${where}: expected an array, got ${show(actual)}`;
    if (actual.length !== expected.length) return `${where}: expected ${expected.length} item(s), got ${actual.length}: ${show(actual)}`;
    for (let i = 0; i < expected.length; i++) {
      const mismatch = findMismatch(expected[i]!, actual[i], `${where}[${i}]`);
      if (mismatch) return mismatch;
    }
    return null;
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return `${where}: expected an object, got ${show(actual)}`;
    const got = actual as Record<string, unknown>;
    for (const key of Object.keys(expected)) {
      if (!Object.hasOwn(got, key)) return `${where}.${key}: missing`;
      const mismatch = findMismatch(expected[key]!, got[key], `${where}.${key}`);
      if (mismatch) return mismatch;
    }
    const extra = Object.keys(got).filter((key) => !Object.hasOwn(expected, key));
    return extra.length > 0 ? `${where}: unexpected key(s) ${extra.join(", ")}` : null;
  }
  if (Object.is(expected, actual)) return null;
  if (typeof expected === "string" && typeof actual === "string") return `${where}: ${stringDifference(expected, actual)}`;
  return `${where}: expected ${show(expected)}, got ${show(actual)}`;
}

/** Two long strings can look alike when cut short: show both from just before where they differ. */
function stringDifference(expected: string, actual: string): string {
  let at = 0;
  while (at < expected.length && at < actual.length && expected[at] === actual[at]) at++;
  if (at < SHOW_LIMIT / 2) return `expected ${show(expected)}, got ${show(actual)}`;
  const from = at - 20;
  return `differs at character ${at}: expected …${show(expected.slice(from))}, got …${show(actual.slice(from))}`;
}

/** Expected headers against actual ones; a null expectation means "must be absent". */
export function findHeaderMismatch(
  expected: Record<string, string | null>,
  actual: (name: string) => string | null | undefined,
  where = "header",
): string | null {
  for (const [name, want] of Object.entries(expected)) {
    const got = actual(name.toLowerCase()) ?? null;
    if (want === null) {
      if (got !== null) return `${where} ${name}: expected absent, got ${show(got)}`;
    } else if (got === null) {
      return `${where} ${name}: missing (expected ${show(want)})`;
    } else if (!matchesText(want, got)) {
      return `${where} ${name}: expected ${show(want)}, got ${show(got)}`;
    }
  }
  return null;
}

const SHOW_LIMIT = 160;

/** A value as JSON, shortened for a one-line report. */
export function show(value: unknown): string {
  const text = value === undefined ? "nothing" : JSON.stringify(value);
  return text.length > SHOW_LIMIT ? `${text.slice(0, SHOW_LIMIT)}…` : text;
}
