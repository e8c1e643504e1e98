// What the server-rendered sites (the operator's console, the vendors' portal) read of a request:
// a form's fields, whether a change came from the site itself, a route's path parts. One reading of
// each for both, so a rule fixed here holds on both.

/** A change larger than this is no form of either site. */
export const FORM_LIMIT_BYTES = 64 * 1024;

/**
 * A browser names the page a form came from (Origin); a change from another site is refused. Hosts
 * are compared, not schemes: behind a proxy that ends TLS the site sees http:// while the browser
 * says https:// (the proxy must pass the Host header on).
 */
export function sameOrigin(request: Request, url: URL): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  try {
    return new URL(origin).host === (request.headers.get("host") ?? url.host);
  } catch {
    return false;
  }
}

/** An url-encoded form's fields; null when it is no such form or larger than the limit. */
export async function formOf(request: Request): Promise<URLSearchParams | null> {
  const type = request.headers.get("content-type") ?? "";
  const length = Number(request.headers.get("content-length") ?? "0");
  if (!type.startsWith("application/x-www-form-urlencoded") || length > FORM_LIMIT_BYTES) return null;
  const text = await textUpTo(request, FORM_LIMIT_BYTES);
  return text === null ? null : new URLSearchParams(text);
}

/** The body as text, or null past `limit` bytes (see bodyStart). */
async function textUpTo(request: Request, limit: number): Promise<string | null> {
  const start = await bodyStart(request, limit);
  return start.byteLength > limit ? null : Buffer.from(start.buffer, start.byteOffset, start.byteLength).toString("utf8");
}

/**
 * The body's first `limit` bytes, and some more when it is longer, read no further: a chunked body
 * names no length, and a listener may accept bodies larger than a form, on any path, before anyone
 * signed in. (The main thread hands the portal's thread what its form reading would read.)
 */
export async function bodyStart(request: Request, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of request.body ?? []) {
    size += chunk.byteLength;
    chunks.push(chunk);
    if (size > limit) break;
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** A signed-in route: method, path (its groups, URI-decoded, are the handler's arguments), handler. */
export type Route<Context> = ["GET" | "POST", RegExp, (context: Context, ...parts: string[]) => Promise<Response>];

/** The answer of the first route matching method and path; null when none does. */
export function routed<Context>(routes: readonly Route<Context>[], method: string, path: string, context: Context): Promise<Response> | null {
  for (const [routeMethod, pattern, handle] of routes) {
    const parts = routeMethod === method ? pattern.exec(path)?.slice(1).map(decoded) : undefined;
    if (parts && !parts.includes(null)) return handle(context, ...(parts as string[]));
  }
  return null;
}

/** A path segment URI-decoded; null when it is malformed (`%E0%A4%A`), which no route matches. */
function decoded(part: string): string | null {
  try {
    return decodeURIComponent(part);
  } catch {
    return null;
  }
}
