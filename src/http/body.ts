// Reads a request body under the contract's rules (CONTRACT §2, §4): size limit first (413), then
// JSON parse (400), then "is an object" (400). The Content-Type header is not consulted, so
// `curl -d '{...}'` (sent as application/x-www-form-urlencoded) works.

export type BodyRead =
  | { ok: true; text: string; value: Record<string, unknown> }
  | { ok: false; status: 400 | 413; error: string };

export async function readJsonObject(request: Request, limitBytes: number): Promise<BodyRead> {
  let text: string | null;
  try {
    text = await readText(request, limitBytes);
  } catch {
    // The client went away mid-body (or sent a broken chunked stream): nobody reads the answer.
    return { ok: false, status: 400, error: "Request body could not be read" };
  }
  if (text === null) return { ok: false, status: 413, error: `Request body exceeds ${limitBytes} bytes` };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, status: 400, error: "Malformed JSON body" };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { ok: false, status: 400, error: "Request body must be a JSON object" };
  }
  return { ok: true, text, value: value as Record<string, unknown> };
}

/**
 * The body as UTF-8 text, or null when it is larger than the limit (read no further than that).
 * Not async: a declared length (the usual case) hands back `request.text()` itself, without the
 * extra promise an async function would wrap around it.
 */
function readText(request: Request, limitBytes: number): Promise<string | null> {
  const declared = request.headers.get("content-length");
  if (declared === null) return readChunked(request, limitBytes);
  // A declared length is enforced by the server, so the body cannot outgrow it.
  return Number(declared) > limitBytes ? Promise.resolve(null) : request.text();
}

async function readChunked(request: Request, limitBytes: number): Promise<string | null> {
  if (!request.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body) {
    size += chunk.byteLength;
    if (size > limitBytes) return null;
    chunks.push(chunk);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}
