// Reading a /v1 body (docs/contract.md §2, §4): size, then UTF-8, then the JSON (its nesting, then
// its syntax), then "is an object". The nesting limit holds at any depth the size limit lets in.
import { describe, expect, test } from "bun:test";
import { BODY_NOT_AN_OBJECT, BODY_NOT_UTF8, bodyTooDeep, bodyTooLarge, MALFORMED_JSON } from "../../src/contract/texts.ts";
import { readJsonObject } from "../../src/http/body.ts";
import { EnvelopeError } from "../../src/http/envelope.ts";
import { MAX_BODY_NESTING } from "../../src/http/json-nesting.ts";
import { nestedArrays, nestedJson } from "../helpers/nested-json.ts";

const LIMIT = 64 * 1024;
const FOUR_MIB = 4 * 1024 * 1024;
const TOO_DEEP = bodyTooDeep(MAX_BODY_NESTING);

const request = (body: string | Uint8Array) => new Request("http://localhost/v1/postLead", { method: "POST", body });

/** The envelope error readJsonObject throws, as [status, texts]; or "read" when it reads the body. */
async function outcome(body: string | Uint8Array, limit = LIMIT): Promise<[number, string[]] | "read"> {
  try {
    await readJsonObject(request(body), limit);
    return "read";
  } catch (error) {
    if (error instanceof EnvelopeError) return [error.status, error.errors];
    throw error;
  }
}

/** A body whose extra_data takes the body to `levels` levels (the body's own object is level 1). */
const bodyNesting = (levels: number) => `{"phone_number":"(212) 555-0123","extra_data":${nestedJson(levels - 1)}}`;

describe("the nesting limit", () => {
  test("the text names the limit", () => {
    expect(TOO_DEEP).toBe("Request body nests objects and arrays deeper than 32 levels");
  });

  test("a body nesting 32 levels is read; 33 levels is a 400 with the text", async () => {
    expect(await outcome(bodyNesting(32))).toBe("read");
    expect(await outcome(bodyNesting(33))).toEqual([400, [TOO_DEEP]]);
  });

  test("brackets inside strings do not count: only the levels the JSON opens do", async () => {
    const withBrackets = (levels: number) => `{"note":${JSON.stringify(`"[{\\${"[{".repeat(1_000)}`)},"extra_data":${nestedJson(levels - 1)}}`;
    expect(await outcome(withBrackets(32))).toBe("read");
    expect(await outcome(withBrackets(33))).toEqual([400, [TOO_DEEP]]);
  });

  test("100,000 levels under a 4 MiB body limit: a 400, not a stack overflow", async () => {
    expect(await outcome(`{"extra_data":${nestedArrays(100_000)}}`, FOUR_MIB)).toEqual([400, [TOO_DEEP]]);
    expect(await outcome(nestedArrays(2_000_000), FOUR_MIB)).toEqual([400, [TOO_DEEP]]);
  });
});

describe("the order of the body's checks", () => {
  test("the nesting comes after the size and UTF-8, and before the syntax and 'is an object': the parse stops at the 33rd level", async () => {
    expect(await outcome(nestedArrays(1_000), 1_000)).toEqual([413, [bodyTooLarge(1_000)]]);
    const notUtf8 = new TextEncoder().encode(`{"a":"\u00e9",${nestedArrays(40).slice(1)}`);
    notUtf8[6] = 0xff;
    expect(await outcome(notUtf8)).toEqual([400, [BODY_NOT_UTF8]]);
    expect(await outcome(`{"a":${"[".repeat(40)}`)).toEqual([400, [TOO_DEEP]]);
    expect(await outcome(nestedArrays(40))).toEqual([400, [TOO_DEEP]]);
    expect(await outcome(`{"a":${"[".repeat(10)}`)).toEqual([400, [MALFORMED_JSON]]);
    expect(await outcome(nestedArrays(10))).toEqual([400, [BODY_NOT_AN_OBJECT]]);
  });
});
