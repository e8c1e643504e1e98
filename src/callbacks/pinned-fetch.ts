// Connects fetch to the address the SSRF guard checked, not to whatever DNS says a moment later.
// Bun's fetch has no `lookup` hook, so the URL's host becomes the IP and the original name travels
// in the Host header and, for https, as the TLS server name: Bun 1.4.5 then sends it as SNI and
// verifies the certificate against it (test/callbacks/pinned-fetch.test.ts shows both).
import { isIP } from "node:net";

export interface PinnedRequest {
  /** The callback URL with its host replaced by the checked address. */
  url: URL;
  init: BunFetchRequestInit;
}

/** Where a URL is reached at a checked address: computed once per URL and address, reused per request. */
export interface PinnedTarget {
  /** The URL with its host replaced by the checked address. */
  url: URL;
  /** The URL's own host (and port), sent as the Host header. */
  host: string;
  /** https to a name: the name, sent as SNI and matched by the certificate. */
  serverName: string | undefined;
}

/** Pins `callbackUrl` to `target.address` (from resolveCallbackTarget); throws when the URL cannot carry that address. */
export function pinTarget(callbackUrl: URL, target: { address: string; family: 4 | 6 }): PinnedTarget {
  const url = new URL(callbackUrl);
  url.hostname = target.family === 6 ? `[${target.address}]` : target.address;
  // The setter ignores a value it cannot parse (an IPv6 zone, say) and would leave the name in place.
  if (!isIP(unbracket(url.hostname))) throw new Error(`Cannot pin callback host ${callbackUrl.host} to address ${target.address}`);
  const name = callbackUrl.hostname.replace(/\.$/, "");
  // An IP-literal URL is already pinned, and SNI never carries an IP address (RFC 6066).
  const serverName = callbackUrl.protocol === "https:" && !isIP(unbracket(name)) ? name : undefined;
  return { url, host: callbackUrl.host, serverName };
}

/**
 * fetch's init for a request to `pinned`: Host kept, https certificate checked against the name.
 * Redirects are returned, never followed, and proxy variables are ignored: either would connect
 * somewhere unchecked. `headers` as a plain object (callbacks' are) stays one, without a
 * Headers object per request; any other form goes through Headers.
 */
export function pinnedInit(pinned: PinnedTarget, init: BunFetchRequestInit = {}): BunFetchRequestInit {
  const result: BunFetchRequestInit = { ...init, headers: withHost(init.headers, pinned.host), redirect: "manual", proxy: false };
  if (pinned.serverName !== undefined) result.tls = { ...init.tls, serverName: pinned.serverName };
  return result;
}

/**
 * Builds `fetch(url, init)` arguments that reach `callbackUrl` at `target.address` (from
 * resolveCallbackTarget) while keeping its Host header and https certificate check.
 */
export function pinnedFetchInit(callbackUrl: URL, target: { address: string; family: 4 | 6 }, init: BunFetchRequestInit = {}): PinnedRequest {
  const pinned = pinTarget(callbackUrl, target);
  return { url: pinned.url, init: pinnedInit(pinned, init) };
}

/** The headers with Host set to `host`, replacing one in any letter case. */
function withHost(headers: BunFetchRequestInit["headers"], host: string): Record<string, string> | Headers {
  if (headers === undefined || isPlainRecord(headers)) {
    const result: Record<string, string> = {};
    for (const name in headers) if (name.toLowerCase() !== "host") result[name] = headers[name] as string;
    result.host = host;
    return result;
  }
  const result = new Headers(headers);
  result.set("host", host);
  return result;
}

const isPlainRecord = (headers: object): headers is Record<string, string> => Object.getPrototypeOf(headers) === Object.prototype;

const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, "$1");
