// Which client a request comes from, for throttling failed credentials (docs/contract.md §9).
//
// The client is the socket's peer, unless the peer is a proxy the operator trusts
// (--trusted-proxies): then it is the right-most X-Forwarded-For hop that is not a trusted proxy.
// Hops to its left were written by the client itself and prove nothing. Without trusted proxies
// the header is ignored, so a stranger cannot dodge its own throttle, nor throttle someone else,
// by writing one. An IPv6 client is counted by its /64, the block one host usually controls.
import { BlockList, isIP } from "node:net";
import { parseAddressRange } from "../config/parse.ts";

/** The socket peer of a request as the server received it; undefined when there is no socket (tests). */
export type PeerAddress = (request: Request) => string | undefined;

// Bun knows the peer only of the request object it received; routableRequest may hand the app a
// copy, which remembers its original here.
const originals = new WeakMap<Request, Request>();

/** `routed` (the request the app handles), remembering that the server received `received`. */
export function routedFrom(received: Request, routed: Request): Request {
  if (routed !== received) originals.set(routed, received);
  return routed;
}

/** The request the server received, the one whose peer it knows. */
export const receivedRequest = (request: Request): Request => originals.get(request) ?? request;

/** The client's address as failures are counted: an IPv4 address, an IPv6 /64, or "unknown". */
export type ClientAddress = (request: Request) => string;

export function createClientAddress(trustedProxies: string[], peerAddress: PeerAddress): ClientAddress {
  const trusted = new BlockList();
  for (const range of trustedProxies.map(parseAddressRange)) trusted.addSubnet(range.address, range.prefix, range.family);
  const isTrusted = (address: string) => trustedProxies.length > 0 && trusted.check(address, isIP(address) === 4 ? "ipv4" : "ipv6");

  return (request) => {
    const peer = peerAddress(request);
    if (peer === undefined) return "unknown";
    let client = unmapped(peer);
    if (!isTrusted(client)) return countedAs(client);
    const hops = request.headers.get("x-forwarded-for")?.split(",") ?? [];
    for (let i = hops.length - 1; i >= 0 && isTrusted(client); i--) {
      const hop = unmapped(hops[i]!.trim());
      // A trusted proxy writes an address; anything else was written by the client.
      if (isIP(hop) === 0) break;
      client = hop;
    }
    return countedAs(client);
  };
}

/** "::ffff:192.0.2.7" (an IPv4 peer of a dual-stack socket) → "192.0.2.7". */
function unmapped(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}

function countedAs(address: string): string {
  return isIP(address) === 6 ? `${ipv6Prefix64(address)}::/64` : address;
}

/** The first four groups of an IPv6 address, written out: "2001:db8::1" → "2001:db8:0:0". */
function ipv6Prefix64(address: string): string {
  const [head = "", tail] = address.split("%")[0]!.toLowerCase().split("::");
  const headGroups = head === "" ? [] : head.split(":");
  // An embedded IPv4 address fills two groups; only their number matters for the first four.
  const tailGroups = tail ? tail.split(":").flatMap((group) => (group.includes(".") ? ["0", "0"] : [group])) : [];
  const zeros = tail === undefined ? [] : Array<string>(8 - headGroups.length - tailGroups.length).fill("0");
  return [...headGroups, ...zeros, ...tailGroups]
    .slice(0, 4)
    .map((group) => parseInt(group, 16).toString(16))
    .join(":");
}
