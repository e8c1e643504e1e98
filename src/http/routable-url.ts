// Elysia finds a request's path with `url.indexOf("/", 11)`, which assumes "http://" plus a host
// of at least four characters. A short Host such as `lb` (nginx's default `proxy_pass` sends its
// upstream's name) would route `/v1/postLead` as `/postLead`. Such rare requests get a stand-in
// host; only routing reads the URL. (Elysia's `standardHostname: false` searches from 7 instead,
// which breaks https URLs, so it is no fix.)

const ELYSIA_PATH_SEARCH_FROM = 11;

export function routableRequest(request: Request): Request {
  const url = request.url;
  const pathStart = url.indexOf("/", url.indexOf("//") + 2);
  if (pathStart >= ELYSIA_PATH_SEARCH_FROM || pathStart < 0) return request;
  const scheme = url.slice(0, url.indexOf("//") + 2);
  return new Request(`${scheme}short-host.invalid${url.slice(pathStart)}`, request);
}
