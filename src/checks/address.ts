// Where a check's requests go: its URL's host resolved and judged by the callbacks' address rules
// (src/callbacks/ssrf.ts), then pinned (pinned-fetch.ts) as the HTTP client's target
// (http-client.ts: address, port, TLS name, the request line and Host), kept per URL for TARGET_TTL_MS as a
// resolver's cache would. A check's URL is the operator's and the same for every lead, so looking
// it up, judging every address and building the pinned URL per lead cost intake CPU for nothing
// (bench/README.md, "External checks' cost"). What connects is still the address that was checked:
// a cached target is one that passed the rules, and DNS changing meanwhile cannot redirect it.
//
// Only allowed targets are kept: a refusal or a failed lookup is tried again by the next lead (the
// guard pauses a check that keeps failing). Leads arriving while a URL is being resolved share that
// one lookup, each still bounded by its own deadline.
import { pinTarget } from "../callbacks/pinned-fetch.ts";
import { type Lookup, resolveCallbackTarget, untilAborted } from "../callbacks/ssrf.ts";
import type { Cancel } from "./cancel.ts";
import type { HttpTarget } from "./http-client.ts";

/** How long a checked address is reused: a few seconds, so a service that moves is followed soon. */
export const TARGET_TTL_MS = 5_000;

export type CheckTarget = { ok: true; target: HttpTarget } | { ok: false; error: string };

export interface CheckAddresses {
  /** The pinned target of `url`, at once when it is known; rejects when `cancel` ends a lookup. */
  target(url: string, cancel: Cancel): CheckTarget | Promise<CheckTarget>;
  clear(): void;
}

export interface CheckAddressOptions {
  /** Development and tests: private and loopback addresses allowed (the callbacks' setting). */
  allowPrivate: boolean;
  lookup?: Lookup;
  /** ms, monotonic; default performance.now. */
  now?: () => number;
  ttlMs?: number;
}

/** Resolves, judges and pins `url` now (a malformed URL or one that cannot be pinned is refused, not thrown). */
export async function resolveCheckTarget(url: string, options: CheckAddressOptions, signal?: AbortSignal): Promise<CheckTarget> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, error: `Invalid check URL ${url}` };
  }
  const target = await resolveCallbackTarget(parsed, { allowPrivate: options.allowPrivate, lookup: options.lookup, signal, what: "check" });
  if (!target.ok) return target;
  try {
    const pinned = pinTarget(parsed, target);
    return { ok: true, target: httpTarget(pinned.url, pinned.host, pinned.serverName) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

export function checkAddresses(options: CheckAddressOptions): CheckAddresses {
  const now = options.now ?? (() => performance.now());
  const ttlMs = options.ttlMs ?? TARGET_TTL_MS;
  const known = new Map<string, { target: CheckTarget; expiresAt: number }>();
  const resolving = new Map<string, Promise<CheckTarget>>();

  function keep(url: string, target: CheckTarget) {
    const at = now();
    // A URL the policy no longer names is dropped once expired, when another is kept.
    for (const [other, entry] of known) if (entry.expiresAt <= at) known.delete(other);
    known.set(url, { target, expiresAt: at + ttlMs });
  }

  function resolve(url: string): Promise<CheckTarget> {
    let pending = resolving.get(url);
    if (pending === undefined) {
      const lookup: Promise<CheckTarget> = resolveCheckTarget(url, options).then((target) => {
        if (target.ok) keep(url, target);
        return target;
      });
      lookup
        .finally(() => {
          if (resolving.get(url) === lookup) resolving.delete(url);
        })
        .catch(() => {});
      resolving.set(url, lookup);
      pending = lookup;
    }
    return pending;
  }

  return {
    target(url, cancel) {
      const entry = known.get(url);
      if (entry !== undefined && entry.expiresAt > now()) return entry.target;
      return untilAborted(resolve(url), cancel.signal());
    },
    clear() {
      known.clear();
      resolving.clear();
    },
  };
}

/** The HTTP client's target for a pinned URL (`url` with the checked address as host, `host` the URL's own): built once per URL. */
export function httpTarget(url: URL, host: string, serverName: string | undefined): HttpTarget {
  const secure = url.protocol === "https:";
  const address = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const port = url.port === "" ? (secure ? 443 : 80) : Number(url.port);
  const tls = secure ? (serverName === undefined ? {} : { serverName }) : null;
  return {
    key: `${url.protocol}//${url.host}#${serverName ?? ""}`,
    address,
    port,
    tls,
    head: `POST ${url.pathname}${url.search} HTTP/1.1\r\nhost: ${host}\r\n`,
  };
}
