// SSRF guard for callbacks (docs/contract.md §8): a vendor chooses the callback URL, so without this check
// a lead could make the service POST into its own network or a cloud metadata endpoint. The host is
// resolved at delivery time and every address it resolves to must be public; the caller then
// connects to the address that was checked (pinned-fetch.ts), so DNS cannot change in between.
import { lookup as dnsLookup } from "node:dns/promises";
import { isIP } from "node:net";

export type RefusalReason =
  | "unspecified"
  | "loopback"
  | "private"
  | "link-local"
  | "site-local"
  | "cgnat"
  | "multicast"
  | "broadcast"
  | "metadata"
  | "documentation"
  | "benchmarking"
  | "reserved"
  | "invalid";

export type AddressClass = "public" | RefusalReason;

type Rule = { prefix: Uint8Array; bits: number; reason: AddressClass | ((bytes: Uint8Array) => AddressClass) };

/** A v4 address carried inside a v6 one is judged as that v4 address. */
const embeddedV4At = (offset: number) => (bytes: Uint8Array) => classifyV4(bytes.subarray(offset, offset + 4));

// First match wins, so the more specific ranges come first.
const V4_RULES: Rule[] = [
  rule("0.0.0.0/8", "unspecified"),
  rule("10.0.0.0/8", "private"),
  rule("100.100.100.200/32", "metadata"), // Alibaba Cloud
  rule("100.64.0.0/10", "cgnat"),
  rule("127.0.0.0/8", "loopback"),
  rule("168.63.129.16/32", "metadata"), // Azure host endpoint: a public-looking address that only a VM can reach
  rule("169.254.169.254/32", "metadata"), // AWS, GCP, Azure, OpenStack, ...
  rule("169.254.0.0/16", "link-local"),
  rule("172.16.0.0/12", "private"),
  rule("192.0.0.0/24", "reserved"), // IETF protocol assignments (Oracle Cloud metadata is 192.0.0.192)
  rule("192.0.2.0/24", "documentation"),
  rule("192.88.99.0/24", "reserved"), // former 6to4 relay anycast
  rule("192.168.0.0/16", "private"),
  rule("198.18.0.0/15", "benchmarking"),
  rule("198.51.100.0/24", "documentation"),
  rule("203.0.113.0/24", "documentation"),
  rule("224.0.0.0/4", "multicast"),
  rule("255.255.255.255/32", "broadcast"),
  rule("240.0.0.0/4", "reserved"),
];

const V6_RULES: Rule[] = [
  rule("::/128", "unspecified"),
  rule("::1/128", "loopback"),
  rule("::ffff:0:0/96", embeddedV4At(12)), // IPv4-mapped
  // IPv4-compatible (deprecated): no public use, so a public embedded address is still refused.
  rule("::/96", (bytes) => {
    const embedded = embeddedV4At(12)(bytes);
    return embedded === "public" ? "reserved" : embedded;
  }),
  rule("64:ff9b::/96", embeddedV4At(12)), // NAT64 well-known prefix
  rule("64:ff9b:1::/48", "reserved"), // NAT64 local use
  rule("100::/64", "reserved"), // discard-only
  rule("2001:db8::/32", "documentation"),
  rule("2001::/23", "reserved"), // IETF protocol assignments, Teredo among them
  rule("2002::/16", embeddedV4At(2)), // 6to4
  rule("3fff::/20", "documentation"),
  rule("fd00:ec2::254/128", "metadata"), // AWS over IPv6
  rule("fc00::/7", "private"), // unique local
  rule("fe80::/10", "link-local"),
  rule("fec0::/10", "site-local"),
  rule("ff00::/8", "multicast"),
];

// Outside 2000::/3 nothing is allocated for global unicast yet.
const V6_GLOBAL_UNICAST = rule("2000::/3", "public");

/**
 * Classifies an IP address (v4 or v6; "[::1]" brackets and a "%zone" suffix are accepted): "public"
 * when a callback may go there, otherwise why not. Anything that is not an IP address is "invalid".
 */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[(.*)\]$/, "$1").replace(/%.*$/, "");
  const bytes = parseAddress(bare);
  if (!bytes) return "invalid";
  if (bytes.length === 4) return classifyV4(bytes);
  return firstMatch(V6_RULES, bytes) ?? (matches(V6_GLOBAL_UNICAST, bytes) ? "public" : "reserved");
}

/**
 * Why a callback host is refused before any lookup: a literal address that is not public, or a
 * `localhost` name (RFC 6761: `localhost` and `*.localhost` are loopback). null for a public literal
 * and for every other name, which only the lookup at delivery can judge. `hostname` as WHATWG URL
 * gives it: IPv4 spellings (hex, octal, decimal, short) already normalised, IPv6 in brackets.
 */
export function literalHostRefusal(hostname: string): RefusalReason | null {
  if (/(^|\.)localhost\.?$/i.test(hostname)) return "loopback";
  const verdict = classifyAddress(hostname);
  return verdict === "public" || verdict === "invalid" ? null : verdict;
}

function classifyV4(bytes: Uint8Array): AddressClass {
  return firstMatch(V4_RULES, bytes) ?? "public";
}

function firstMatch(rules: Rule[], bytes: Uint8Array): AddressClass | undefined {
  const found = rules.find((r) => matches(r, bytes));
  if (!found) return undefined;
  return typeof found.reason === "function" ? found.reason(bytes) : found.reason;
}

function matches({ prefix, bits }: Rule, bytes: Uint8Array): boolean {
  if (prefix.length !== bytes.length) return false;
  for (let i = 0; i * 8 < bits; i++) {
    const mask = bits - i * 8 >= 8 ? 0xff : (0xff << (8 - (bits - i * 8))) & 0xff;
    if (((prefix[i] ?? 0) & mask) !== ((bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

function rule(cidr: string, reason: Rule["reason"]): Rule {
  const [address = "", bits = ""] = cidr.split("/");
  const prefix = parseAddress(address);
  if (!prefix) throw new Error(`bad rule ${cidr}`);
  return { prefix, bits: Number(bits), reason };
}

/** 4 bytes for IPv4, 16 for IPv6, null for anything else. */
function parseAddress(ip: string): Uint8Array | null {
  const version = isIP(ip);
  if (version === 4) return Uint8Array.from(ip.split("."), Number);
  if (version !== 6) return null;
  // isIP has checked the syntax: expand "::" and a dotted-quad tail into eight 16-bit groups.
  const toGroups = (part: string) =>
    part === ""
      ? []
      : part.split(":").flatMap((g) => {
          if (!g.includes(".")) return [parseInt(g, 16)];
          const [a = 0, b = 0, c = 0, d = 0] = g.split(".").map(Number);
          return [(a << 8) | b, (c << 8) | d];
        });
  const [head = "", tail] = ip.split("::");
  const before = toGroups(head);
  const after = tail === undefined ? [] : toGroups(tail);
  const groups = [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after];
  return Uint8Array.from(groups.flatMap((g) => [g >> 8, g & 0xff]));
}

/** `promise`, or a rejection as soon as `signal` aborts (for work that cannot itself be cancelled). */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  return Promise.race([promise, rejectOnAbort(signal)]);
}

/** Rejects when the signal aborts; handled up front, because once a race is won nobody listens. */
function rejectOnAbort(signal: AbortSignal): Promise<never> {
  const promise = new Promise<never>((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
  promise.catch(() => {});
  return promise;
}

export type LookupAddress = { address: string; family: number };
export type Lookup = (hostname: string) => Promise<LookupAddress[]>;

export type CallbackTarget = { ok: true; address: string; family: 4 | 6 } | { ok: false; error: string };

const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Resolves the callback URL's host now, at delivery time, and returns the address to connect to
 * (the first one the resolver gave). Refused, with the error to record for the attempt, when the
 * scheme is not http(s), the host does not resolve, or ANY of its addresses is not public: a name
 * with one public and one private address could otherwise be steered to the private one.
 * `allowPrivate` (development and tests) lets every address through.
 */
export async function resolveCallbackTarget(
  url: URL,
  options: { allowPrivate: boolean; lookup?: Lookup; signal?: AbortSignal; what?: string },
): Promise<CallbackTarget> {
  // The same rules serve external checks (src/checks/): `what` names the request in the error.
  const what = options.what ?? "callback";
  if (url.protocol !== "http:" && url.protocol !== "https:") return { ok: false, error: `Refused ${what} URL scheme ${url.protocol}` };
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const literal = isIP(host);
  let addresses: LookupAddress[];
  if (literal) addresses = [{ address: host, family: literal }];
  else {
    try {
      // A system lookup cannot be cancelled, so it races the caller's deadline instead.
      const lookup = (options.lookup ?? systemLookup)(host);
      addresses = await (options.signal ? untilAborted(lookup, options.signal) : lookup);
    } catch (error) {
      if (options.signal?.aborted) throw error;
      const { code, message } = error as { code?: string; message?: string };
      return { ok: false, error: `Could not resolve ${what} host ${host}: ${code ?? message ?? String(error)}` };
    }
  }
  const first = addresses[0];
  if (!first) return { ok: false, error: `Could not resolve ${what} host ${host}: no addresses` };
  if (!options.allowPrivate) {
    for (const { address } of addresses) {
      const verdict = classifyAddress(address);
      if (verdict !== "public") {
        const from = literal ? "" : `, resolved from ${host}`;
        return { ok: false, error: `Refused ${what} address ${address} (${verdict})${from}` };
      }
    }
  }
  // The family comes from the address itself, not from what the resolver claimed.
  const family = isIP(first.address.replace(/%.*$/, ""));
  if (family === 0) return { ok: false, error: `Refused ${what} address ${first.address} (invalid)` };
  return { ok: true, address: first.address, family: family === 6 ? 6 : 4 };
}
