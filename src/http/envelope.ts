// The contract's one response shape (docs/contract.md §1):
//   { "<flag>": true|false, "message": "<text>" | [ { "error": "<text>" }, ... ] }

/** Which boolean a route's envelope carries: prePing answers with can_post_phone_bit. */
export type Flag = "success_bit" | "can_post_phone_bit";

export interface Reply {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

export function success(flag: Flag, message: string, extra: Record<string, unknown> = {}, status = 200): Reply {
  return { status, body: { [flag]: true, message, ...extra } };
}

export function failure(flag: Flag, status: number, errors: string[], headers?: Record<string, string>): Reply {
  // An empty error list would break the contract's "never empty"; fail loudly in development.
  if (errors.length === 0) throw new Error("failure() needs at least one error");
  return { status, body: { [flag]: false, message: errors.map((error) => ({ error })) }, headers };
}

/** Where Elysia takes a route's status and headers from (its context's `set`). */
interface ResponseSettings {
  status?: number | string;
  headers: Record<string, string | number>;
}

/**
 * A route's Reply as Elysia answers it: status and headers on `set`, the body for Elysia to
 * serialise. No cost measured against building the Response ourselves (bench/README.md, "Behind
 * the code").
 */
export function answer(set: ResponseSettings, reply: Reply): Record<string, unknown> {
  set.status = reply.status;
  if (reply.headers) Object.assign(set.headers, reply.headers);
  return reply.body;
}

const JSON_HEADERS = { "content-type": "application/json; charset=utf-8" };
/** Elysia's spelling, which a route's answer has always had, also where the server answers a route without Elysia. */
export const ROUTE_JSON_HEADERS = { "content-type": "application/json;charset=utf-8" };

export function toResponse(reply: Reply, base: Record<string, string> = JSON_HEADERS): Response {
  return new Response(JSON.stringify(reply.body), {
    status: reply.status,
    headers: reply.headers ? { ...base, ...reply.headers } : base,
  });
}

/** The flag of the route a path belongs to, for answers made before a route is known. */
export function flagForPath(path: string): Flag {
  const lower = path.toLowerCase();
  return lower.startsWith("/v1/preping") || lower.startsWith("/v1/test/preping") ? "can_post_phone_bit" : "success_bit";
}

/**
 * A failed answer thrown from a request's handling (authentication, the body's rules); the app's
 * one error handler answers it in the envelope of the request's route. For the outcomes a route
 * expects (a field error, a blocked phone) the route returns its Reply instead: no stack is taken.
 */
export class EnvelopeError extends Error {
  constructor(
    readonly status: number,
    readonly errors: [string, ...string[]],
    readonly headers?: Record<string, string>,
  ) {
    super(errors[0]);
  }

  reply(flag: Flag): Reply {
    return failure(flag, this.status, this.errors, this.headers);
  }
}
