// Reads a request body under the contract's rules (docs/contract.md §2, §4): size limit first (413), then
// UTF-8 (400), then JSON parse (400), then "is an object" (400). The Content-Type header is not
// consulted, so `curl -d '{...}'` (sent as application/x-www-form-urlencoded) works.
//
// Routes call it themselves, after authentication, with `parse: "none"`: Elysia's parse stage
// runs before derive, resolve and beforeHandle, so a route that let Elysia read its body would
// read it before the vendor is known (docs/contract.md §2: authentication first, 401 before 413 and 400),
// and with Elysia's rules (Content-Type decides, no byte limit of ours, U+FFFD for invalid UTF-8).
import { EnvelopeError } from "./envelope.ts";

import { BODY_NOT_AN_OBJECT, BODY_NOT_UTF8, BODY_UNREADABLE, bodyTooDeep, bodyTooLarge, MALFORMED_JSON } from "../contract/texts.ts";
import { MAX_BODY_NESTING, nestsDeeperThan } from "./json-nesting.ts";

export interface JsonBody {
  /** The body as received, for the stored raw request. */
  text: string;
  value: Record<string, unknown>;
}

/**
 * Invalid bytes are refused, not replaced with U+FFFD: the stored raw request is the bytes received,
 * and two different bodies never count as one for idempotency. `bytes()` and this decoder cost
 * next to nothing more than `text()` (bench/README.md, "Behind the code").
 */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

/** The body as a JSON object; throws the contract's 413 or 400 (EnvelopeError) otherwise. */
export async function readJsonObject(request: Request, limitBytes: number): Promise<JsonBody> {
  let bytes: Uint8Array | null;
  try {
    bytes = await readBytes(request, limitBytes);
  } catch {
    // The client went away mid-body (or sent a broken chunked stream): nobody reads the answer.
    throw new EnvelopeError(400, [BODY_UNREADABLE]);
  }
  if (bytes === null) throw new EnvelopeError(413, [bodyTooLarge(limitBytes)]);
  let text: string;
  let value: unknown;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new EnvelopeError(400, [BODY_NOT_UTF8]);
  }
  // The parse step begins with the nesting (docs/contract.md §4), before JSON.parse: a deep body is
  // refused without being built (one both too deep and malformed gets the nesting's text), and
  // nothing after the parse (validation, storing extra_data) meets more than MAX_BODY_NESTING levels.
  if (nestsDeeperThan(text, MAX_BODY_NESTING)) throw new EnvelopeError(400, [bodyTooDeep(MAX_BODY_NESTING)]);
  try {
    value = JSON.parse(text);
  } catch {
    throw new EnvelopeError(400, [MALFORMED_JSON]);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new EnvelopeError(400, [BODY_NOT_AN_OBJECT]);
  }
  return { text, value: value as Record<string, unknown> };
}

/**
 * The body's bytes, or null when it is larger than the limit (read no further than that).
 * Not async: a declared length (the usual case) hands back `request.bytes()` itself, without the
 * extra promise an async function would wrap around it.
 */
function readBytes(request: Request, limitBytes: number): Promise<Uint8Array | null> {
  const declared = request.headers.get("content-length");
  if (declared === null) return readChunked(request, limitBytes);
  // A declared length is enforced by the server, so the body cannot outgrow it.
  return Number(declared) > limitBytes ? Promise.resolve(null) : request.bytes();
}

async function readChunked(request: Request, limitBytes: number): Promise<Uint8Array | null> {
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limitBytes) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}
