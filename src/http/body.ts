// Reads a request body under the contract's rules (CONTRACT §2, §4): size limit first (413), then
// UTF-8 (400), then JSON parse (400), then "is an object" (400). The Content-Type header is not
// consulted, so `curl -d '{...}'` (sent as application/x-www-form-urlencoded) works.

import { BODY_NOT_AN_OBJECT, BODY_NOT_UTF8, BODY_UNREADABLE, bodyTooLarge, MALFORMED_JSON } from "../contract/texts.ts";

export type BodyRead =
  | { ok: true; text: string; value: Record<string, unknown> }
  | { ok: false; status: 400 | 413; error: string };

/**
 * Invalid bytes are refused, not replaced with U+FFFD: the stored raw request is the bytes received,
 * and two different bodies never count as one for idempotency. Measured on a 430-byte lead,
 * `bytes()` and this decoder cost about 0.5 µs more than `text()`.
 */
const UTF8 = new TextDecoder("utf-8", { fatal: true });

export async function readJsonObject(request: Request, limitBytes: number): Promise<BodyRead> {
  let bytes: Uint8Array | null;
  try {
    bytes = await readBytes(request, limitBytes);
  } catch {
    // The client went away mid-body (or sent a broken chunked stream): nobody reads the answer.
    return { ok: false, status: 400, error: BODY_UNREADABLE };
  }
  if (bytes === null) return { ok: false, status: 413, error: bodyTooLarge(limitBytes) };
  let text: string;
  let value: unknown;
  try {
    text = UTF8.decode(bytes);
  } catch {
    return { ok: false, status: 400, error: BODY_NOT_UTF8 };
  }
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, error: MALFORMED_JSON };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, status: 400, error: BODY_NOT_AN_OBJECT };
  }
  return { ok: true, text, value: value as Record<string, unknown> };
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
