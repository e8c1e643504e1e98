// What routing reads of a request: its path as the client sent it, and a URL Elysia can take apart.
//
// Bun builds `request.url` from the Host header. Without a usable one (HTTP/1.0 without Host, as
// HAProxy's default health check sends; an empty Host; `Host: a b`) it is the bare request target,
// `/healthz`, which `new URL` refuses; with a Host it cannot parse (`[::1`, `lb:99999`) it is a URL
// that `new URL` refuses too (Bun 1.4.5). A short Host such as `lb` (nginx's default `proxy_pass` sends
// its upstream's name) breaks Elysia instead: it finds the path with `url.indexOf("/", 11)`, which
// assumes "http://" plus a host of at least four characters, and would route `/v1/postLead` as
// `/postLead`. All get a stand-in host; only routing reads the URL. (Checking that the URL parses
// costs next to nothing: bench/README.md, "Behind the code".) (Elysia's
// `standardHostname: false` searches from 7 instead, which breaks https URLs, so it is no fix.)
//
// Bun's URL also resolves dot segments (`%2e` too) and reads `\` as `/`, so
// `/v1/prePing\..\postLead` arrives as `/v1/postLead`. Bun.serve's `routes`, though, match the
// request target as sent (Bun 1.4.5; test/e2e/http-edges.test.ts fails if that changes): the
// server lists the app's paths there, and a request that matched none of them is not found.

const ELYSIA_PATH_SEARCH_FROM = 11;
const STAND_IN_HOST = "stand-in-host.invalid";

/** Where the request target starts in Bun's request.url: 0 without a host, -1 when it has none. */
function targetStart(url: string): number {
  return url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("//") + 2);
}

/** The request target as sent (path and query), read without parsing the URL: "/" when there is none. */
export function requestTarget(request: Request): string {
  const start = targetStart(request.url);
  return start < 0 ? "/" : request.url.slice(start);
}

export function routableRequest(request: Request): Request {
  const url = request.url;
  const start = targetStart(url);
  if (start === 0 || !URL.canParse(url)) return new Request(`http://${STAND_IN_HOST}${requestTarget(request)}`, request);
  if (start >= ELYSIA_PATH_SEARCH_FROM || start < 0) return request;
  const scheme = url.slice(0, url.indexOf("//") + 2);
  return new Request(`${scheme}${STAND_IN_HOST}${url.slice(start)}`, request);
}

/**
 * The keys for Bun.serve's `routes` that stand for the app's route paths as a client spells them:
 * each path with and without a trailing slash (Elysia takes both).
 */
export function pathsAsSent(routePaths: Iterable<string>): string[] {
  return [...new Set([...routePaths].flatMap((path) => (path.endsWith("/") ? [path] : [path, `${path}/`])))];
}
