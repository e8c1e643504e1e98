// Standard Webhooks signing (docs/contract.md §8, https://www.standardwebhooks.com): vendors verify a
// callback with any Standard Webhooks library and their signing secret. Bun.CryptoHasher does the HMAC;
// the tests check the result against the reference `standardwebhooks` package.
import { randomBytes } from "node:crypto";
import pkg from "../../package.json" with { type: "json" };

export const USER_AGENT = `lead-ingress/${pkg.version}`;

const SECRET_PREFIX = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

export interface CallbackToSign {
  /** The webhook-id: one per callback, the same on every retry so receivers can drop duplicates. */
  id: string;
  /** The webhook-timestamp, in whole seconds since the epoch, of this attempt. */
  timestamp: number;
  /** The exact JSON text that is sent as the body. */
  body: string;
  /** The vendor's signing secret, "whsec_<base64>". */
  secret: string;
}

/** A new signing secret for a vendor: "whsec_" and 32 random bytes in base64. */
export function newSigningSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString("base64")}`;
}

/** The webhook-signature value: "v1,<base64 HMAC-SHA256 of `${id}.${timestamp}.${body}`>". */
export function signCallback({ id, timestamp, body, secret }: CallbackToSign): string {
  // Above 1e11 s (year 5138) it is surely Date.now() milliseconds, which every verifier would refuse.
  if (!Number.isInteger(timestamp) || timestamp < 0 || timestamp >= 1e11) throw new RangeError(`timestamp must be whole seconds, got ${timestamp}`);
  const mac = keyedHasher(secret).copy().update(`${id}.${timestamp}.${body}`).digest("base64");
  return `v1,${mac}`;
}

/**
 * Every header of a callback POST: content type, user agent and the three Standard Webhooks headers.
 * Given several secrets (a rotation's overlap, callbacks/signing-secrets.ts), webhook-signature
 * carries one `v1,` value per secret, in their order, separated by spaces: a verifier accepts the
 * message when any of them matches its secret.
 */
export function callbackHeaders(callback: Omit<CallbackToSign, "secret"> & { secret: string | readonly string[] }): Record<string, string> {
  const secrets = typeof callback.secret === "string" ? [callback.secret] : callback.secret;
  return {
    "content-type": "application/json",
    "user-agent": USER_AGENT,
    "webhook-id": callback.id,
    "webhook-timestamp": String(callback.timestamp),
    "webhook-signature": secrets.map((secret) => signCallback({ ...callback, secret })).join(" "),
  };
}

// The last secret's keyed HMAC state: intake's checks sign every request with one secret, so it is
// decoded and its key hashed into HMAC's state once, and each signature copies that state
// (Bun.CryptoHasher: half the CPU of a createHmac per signature, bench/check-client.ts). Only a
// well-formed secret is kept, so a malformed one keeps throwing.
let lastSecret = "";
let lastHasher: Bun.CryptoHasher | undefined;

/** HMAC-SHA256 keyed with the secret's base64 part, decoded. Throws on a malformed secret rather than sign with garbage. */
function keyedHasher(secret: string): Bun.CryptoHasher {
  if (secret === lastSecret && lastHasher !== undefined) return lastHasher;
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : "";
  if (!BASE64.test(encoded)) throw new Error('signing secret must look like "whsec_<base64>"');
  lastHasher = new Bun.CryptoHasher("sha256", Buffer.from(encoded, "base64"));
  lastSecret = secret;
  return lastHasher;
}
