// The vendor of a /v1 request (docs/contract.md §3), as an Elysia plugin: its derive gives routes `vendor`,
// or ends the request with 401 or 429 (thrown; the app's error handler answers in the envelope).
// Routes that use it read their bodies only in their handler (see http/body.ts), so every request
// is authenticated before a byte of its body is read (docs/contract.md §2).
import { Elysia } from "elysia";
import type { ClientAddress } from "./client-address.ts";
import { RATE_LIMIT_EXCEEDED, TOO_MANY_FAILURES, UNAUTHORIZED } from "../contract/texts.ts";
import { EnvelopeError } from "./envelope.ts";
import type { AuthenticatedVendor, Authenticator, AuthOutcome } from "../auth/authenticator.ts";
import type { RateLimiter } from "../auth/rate-limit.ts";
import { parseBasicAuthorization } from "../auth/basic.ts";
import { note, UNKNOWN_VENDOR, type AuthRefusal } from "./request-note.ts";

export interface VendorAuthDeps {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  /** Whom failed credentials are counted against. */
  clientAddress: ClientAddress;
  /** Whether a vendor of this name exists (enabled or not): a refusal is noted under its name only then. */
  isVendor: (name: string) => boolean;
}

const CHALLENGE = { "www-authenticate": 'Basic realm="lead-ingress", charset="UTF-8"' };
const REFUSED = new EnvelopeError(401, [UNAUTHORIZED], CHALLENGE);

export function createVendorAuth(deps: VendorAuthDeps) {
  /** The vendor, or the 401/429 that ends the request; noted either way. */
  function admit(request: Request, outcome: AuthOutcome): AuthenticatedVendor {
    if (!outcome) throw refused(request, "unauthorized", REFUSED);
    if ("retryAfterSeconds" in outcome)
      throw refused(request, "too_many_failures", new EnvelopeError(429, [TOO_MANY_FAILURES], { "retry-after": String(outcome.retryAfterSeconds) }));
    note(request, { vendor: outcome.name, vendorId: outcome.id });
    const rate = deps.rateLimiter.take(outcome.id);
    if (!rate.ok) throw refused(request, "rate_limited", new EnvelopeError(429, [RATE_LIMIT_EXCEEDED], { "retry-after": String(rate.retryAfterSeconds) }));
    return outcome;
  }

  /** `refusal`, noted under the vendor the credentials name when that is a known one. */
  function refused(request: Request, why: AuthRefusal, refusal: EnvelopeError): EnvelopeError {
    const name = parseBasicAuthorization(request.headers.get("authorization"))?.name;
    note(request, { vendor: name !== undefined && deps.isVendor(name) ? name : UNKNOWN_VENDOR, outcome: why });
    return refusal;
  }

  /**
   * Known credentials are admitted synchronously; only a first check waits for argon2. (The one
   * 401 is shared: most refusals wait out a timer first, and a flood of them allocates nothing.)
   */
  function vendorOf(request: Request): AuthenticatedVendor | Promise<AuthenticatedVendor> {
    const outcome = deps.authenticator.authenticate(request.headers.get("authorization"), () => deps.clientAddress(request));
    return outcome instanceof Promise ? outcome.then((settled) => admit(request, settled)) : admit(request, outcome);
  }

  return {
    vendorOf,
    /**
     * For the routes that need a vendor; scoped: it applies to the plugin that uses it, not the app.
     * Async, so one more promise per request than the old guard's single async function: no cost
     * measured against it (bench/README.md, "Behind the code").
     */
    plugin: new Elysia().derive({ as: "scoped" }, async ({ request }) => ({ vendor: await vendorOf(request) })),
  };
}

export type VendorAuth = ReturnType<typeof createVendorAuth>;
