// Answers for requests that no route takes (docs/contract.md §1): another method on a known path is 405 with
// Allow, an unknown path 404; under /v1 only after authentication, so unknown paths and methods
// reveal nothing to strangers.
import { Elysia, type AnyElysia } from "elysia";
import { METHOD_NOT_ALLOWED, NOT_FOUND } from "../contract/texts.ts";
import { EnvelopeError } from "./envelope.ts";

/** Authenticates a /v1 request: returns (or resolves) when it may go on, throws its 401/429 otherwise. */
export type Authenticate = (request: Request) => unknown;

export const isV1 = (path: string) => path === "/v1" || path.startsWith("/v1/");

interface Route {
  path: string;
  method: string;
}

/**
 * For each path of `routes`, an ALL route that answers 405 with the path's methods: Elysia's
 * router tries a path's own methods first and ALL last. `scope` (the vendor authentication)
 * applies to them before the 405, as to the routes themselves.
 */
export function methodNotAllowed(routes: readonly Route[], scope?: AnyElysia) {
  const methodsByPath = new Map<string, string[]>();
  for (const route of routes)
    if (route.method !== "ALL") (methodsByPath.get(route.path) ?? methodsByPath.set(route.path, []).get(route.path)!).push(route.method);
  const plugin = new Elysia();
  if (scope) plugin.use(scope);
  for (const [path, methods] of methodsByPath) {
    const refusal = new EnvelopeError(405, [METHOD_NOT_ALLOWED], { allow: methods.join(", ") });
    plugin.all(
      path,
      () => {
        throw refusal;
      },
      { detail: { hide: true } },
    );
  }
  return plugin;
}

/** The 404 for a path no route has, after authentication under /v1 (a 401 or 429 there instead). */
export async function notFound(authenticate: Authenticate, request: Request, path: string): Promise<never> {
  if (isV1(path)) await authenticate(request);
  throw new EnvelopeError(404, [NOT_FOUND]);
}
