// The steps every /v1 request takes before its route's own work (CONTRACT §2):
// authentication and the vendor's rate limit (before the body is read), then the body rules.
import type { AuthenticatedVendor, Authenticator, AuthOutcome } from "../auth/authenticator.ts";
import type { RateLimiter } from "../auth/rate-limit.ts";
import { RATE_LIMIT_EXCEEDED, TOO_MANY_FAILURES, UNAUTHORIZED } from "../contract/texts.ts";
import { readJsonObject } from "./body.ts";
import type { ClientAddress } from "./client-address.ts";
import { failure, toResponse, type Flag, type Reply } from "./envelope.ts";

export interface V1Deps {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  bodyLimitBytes: number;
  /** Whom failed credentials are counted against. */
  clientAddress: ClientAddress;
}

export interface JsonBody {
  value: Record<string, unknown>;
  text: string;
}

const CHALLENGE = { "www-authenticate": 'Basic realm="lead-ingress", charset="UTF-8"' };

export function createV1Guard(deps: V1Deps) {
  /** The vendor, or the 401/429 reply that ends the request. */
  function admit(vendor: AuthOutcome, flag: Flag): AuthenticatedVendor | Reply {
    if (!vendor) return failure(flag, 401, [UNAUTHORIZED], CHALLENGE);
    if ("retryAfterSeconds" in vendor) return failure(flag, 429, [TOO_MANY_FAILURES], { "retry-after": String(vendor.retryAfterSeconds) });
    const rate = deps.rateLimiter.take(vendor.id);
    if (!rate.ok) return failure(flag, 429, [RATE_LIMIT_EXCEEDED], { "retry-after": String(rate.retryAfterSeconds) });
    return vendor;
  }

  const isReply = (value: AuthenticatedVendor | Reply): value is Reply => "status" in value && "body" in value;

  /** Known credentials are answered synchronously; only a first check waits for argon2. */
  function admitRequest(request: Request, flag: Flag): AuthenticatedVendor | Reply | Promise<AuthenticatedVendor | Reply> {
    const outcome = deps.authenticator.authenticate(request.headers.get("authorization"), () => deps.clientAddress(request));
    return outcome instanceof Promise ? outcome.then((resolved) => admit(resolved, flag)) : admit(outcome, flag);
  }

  return {
    /** For routes without a body: authenticate, then `handle`. */
    async withVendor(request: Request, flag: Flag, handle: (vendor: AuthenticatedVendor) => Reply | Promise<Reply>): Promise<Response> {
      const pending = admitRequest(request, flag);
      const admitted = pending instanceof Promise ? await pending : pending;
      return toResponse(isReply(admitted) ? admitted : await handle(admitted));
    },
    /**
     * For routes with a JSON body: authenticate, read the body, then `handle`. One async function
     * rather than `withVendor` around a second one: on intake's path every extra async layer is
     * another promise and more microtask turns per request.
     */
    async withBody(request: Request, flag: Flag, handle: (vendor: AuthenticatedVendor, body: JsonBody) => Reply | Promise<Reply>): Promise<Response> {
      const pending = admitRequest(request, flag);
      const admitted = pending instanceof Promise ? await pending : pending;
      if (isReply(admitted)) return toResponse(admitted);
      const body = await readJsonObject(request, deps.bodyLimitBytes);
      return toResponse(body.ok ? await handle(admitted, body) : failure(flag, body.status, [body.error]));
    },
  };
}

export type V1Guard = ReturnType<typeof createV1Guard>;
