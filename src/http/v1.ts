// The steps every /v1 request takes before its route's own work (CONTRACT §2):
// authentication and the vendor's rate limit (before the body is read), then the body rules.
import type { AuthenticatedVendor, Authenticator, AuthOutcome } from "../auth/authenticator.ts";
import type { RateLimiter } from "../auth/rate-limit.ts";
import { readJsonObject } from "./body.ts";
import { failure, toResponse, type Flag, type Reply } from "./envelope.ts";

export interface V1Deps {
  authenticator: Authenticator;
  rateLimiter: RateLimiter;
  bodyLimitBytes: number;
}

export interface JsonBody {
  value: Record<string, unknown>;
  text: string;
}

const CHALLENGE = { "www-authenticate": 'Basic realm="lead-ingress", charset="UTF-8"' };

export function createV1Guard(deps: V1Deps) {
  /** The vendor, or the 401/429/503 reply that ends the request. */
  function admit(vendor: AuthOutcome, flag: Flag): AuthenticatedVendor | Reply {
    if (vendor === "busy") return failure(flag, 503, ["Service temporarily unavailable"], { "retry-after": "1" });
    if (!vendor) return failure(flag, 401, ["Unauthorized"], CHALLENGE);
    const rate = deps.rateLimiter.take(vendor.id);
    if (!rate.ok) return failure(flag, 429, ["Rate limit exceeded"], { "retry-after": String(rate.retryAfterSeconds) });
    return vendor;
  }

  const isReply = (value: AuthenticatedVendor | Reply): value is Reply => "status" in value && "body" in value;

  return {
    /** For routes without a body: authenticate, then `handle`. */
    async withVendor(request: Request, flag: Flag, handle: (vendor: AuthenticatedVendor) => Reply | Promise<Reply>): Promise<Response> {
      // Known credentials are answered synchronously; only a first check waits for argon2.
      const outcome = deps.authenticator.authenticate(request.headers.get("authorization"));
      const admitted = admit(outcome instanceof Promise ? await outcome : outcome, flag);
      return toResponse(isReply(admitted) ? admitted : await handle(admitted));
    },
    /** For routes with a JSON body: authenticate, read the body, then `handle`. */
    async withBody(request: Request, flag: Flag, handle: (vendor: AuthenticatedVendor, body: JsonBody) => Reply | Promise<Reply>): Promise<Response> {
      return this.withVendor(request, flag, async (vendor) => {
        const body = await readJsonObject(request, deps.bodyLimitBytes);
        return body.ok ? handle(vendor, body) : failure(flag, body.status, [body.error]);
      });
    },
  };
}

export type V1Guard = ReturnType<typeof createV1Guard>;
