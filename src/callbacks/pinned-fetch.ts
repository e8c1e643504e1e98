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

/**
 * Builds `fetch(url, init)` arguments that reach `callbackUrl` at `target.address` (from
 * resolveCallbackTarget) while keeping its Host header and https certificate check. Redirects are
 * returned, never followed, and proxy variables are ignored: either would connect somewhere unchecked.
 */
export function pinnedFetchInit(callbackUrl: URL, target: { address: string; family: 4 | 6 }, init: BunFetchRequestInit = {}): PinnedRequest {
  const url = new URL(callbackUrl);
  url.hostname = target.family === 6 ? `[${target.address}]` : target.address;
  // The setter ignores a value it cannot parse (an IPv6 zone, say) and would leave the name in place.
  if (!isIP(unbracket(url.hostname))) throw new Error(`Cannot pin callback host ${callbackUrl.host} to address ${target.address}`);
  const headers = new Headers(init.headers);
  headers.set("host", callbackUrl.host);
  const pinned: BunFetchRequestInit = { ...init, headers, redirect: "manual", proxy: false };
  const name = callbackUrl.hostname.replace(/\.$/, "");
  // An IP-literal URL is already pinned, and SNI never carries an IP address (RFC 6066).
  if (callbackUrl.protocol === "https:" && !isIP(unbracket(name))) {
    pinned.tls = { ...init.tls, serverName: name };
  }
  return { url, init: pinned };
}

const unbracket = (host: string) => host.replace(/^\[(.*)\]$/, "$1");
