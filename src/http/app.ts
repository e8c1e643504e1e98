// The HTTP application: every route, and the one place where errors become the contract's envelope.
import { Elysia } from "elysia";
import { createAuthenticator } from "../auth/authenticator.ts";
import { createRateLimiter } from "../auth/rate-limit.ts";
import type { Config } from "../config/index.ts";
import { isDatabaseUnavailable, type ServiceBackend } from "../db/backend.ts";
import { apiDocs } from "../docs/index.ts";
import { healthRoutes } from "../health/routes.ts";
import { intakeRoutes } from "../intake/routes.ts";
import type { IntakeDeps } from "../intake/service.ts";
import { leadRoutes } from "../leads/lookup.ts";
import { errorText, type Logger } from "../log/index.ts";
import type { Metrics } from "../metrics/index.ts";
import { metricsRoutes } from "../metrics/routes.ts";
import { createClientAddress, type PeerAddress } from "./client-address.ts";
import { failure, flagForPath, success, toResponse, type Flag } from "./envelope.ts";
import { createV1Guard, type V1Guard } from "./v1.ts";

export interface AppDeps {
  config: Config;
  /** The database (its store is shared with the worker). */
  backend: ServiceBackend;
  log: Logger;
  metrics: Metrics;
  /** The socket's peer, from the server; without it every client counts as one (app.handle in tests). */
  peerAddress?: PeerAddress;
  clock?: () => number;
}

export function createApp(deps: AppDeps) {
  const { config, backend, log } = deps;
  const { store } = backend;
  const clock = deps.clock ?? Date.now;
  const guard = createV1Guard({
    authenticator: createAuthenticator(backend.credentialsOf, { clock }),
    rateLimiter: createRateLimiter({ perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst }, clock),
    bodyLimitBytes: config.bodyLimitBytes,
    clientAddress: createClientAddress(config.trustedProxies, deps.peerAddress ?? (() => undefined)),
  });
  const intake: IntakeDeps = {
    store,
    duplicateWindowMs: config.duplicateWindowMs,
    holdPeriodMs: config.holdPeriodMs,
    allowPrivateCallbacks: config.allowPrivateCallbacks,
    clock,
    batches: backend.intakeBatches,
  };

  const app = new Elysia()
    .onError(async ({ code, error, request, path }) => {
      const flag = flagForPath(path);
      if (code === "NOT_FOUND") return unmatched(guard, allowedMethods, request, path, flag);
      if (isDatabaseUnavailable(error)) return toResponse(failure(flag, 503, ["Service temporarily unavailable"], { "retry-after": "1" }));
      log.error("unhandled_error", { method: request.method, path, error: errorText(error) });
      return toResponse(failure(flag, 500, ["Internal server error"]));
    })
    .use(apiDocs())
    .use(healthRoutes(backend.ready))
    .use(metricsRoutes(deps.metrics, store, clock))
    .use(intakeRoutes(guard, intake, deps.metrics))
    .use(leadRoutes(guard, store));
  if (config.benchNoopRoute) app.post("/bench/noop", () => toResponse(success("success_bit", "ok")), { parse: "none" });

  const allowedMethods = (path: string) => app.routes.filter((route) => routeMatches(route.path, path)).map((route) => route.method);
  return Object.assign(app, {
    /** For a request whose target, as sent, is none of the app's paths (see routable-url.ts). */
    notFound: (request: Request, path: string) => unmatched(guard, () => [], request, path, flagForPath(path)),
  });
}

/**
 * No route matched. Under /v1 the caller authenticates first (unknown paths reveal nothing to
 * strangers); then a known path with the wrong method is 405 with Allow, anything else 404.
 */
async function unmatched(guard: V1Guard, allowedMethods: (path: string) => string[], request: Request, path: string, flag: Flag) {
  const methods = allowedMethods(path);
  const reply = () =>
    methods.length > 0
      ? failure(flag, 405, ["Method Not Allowed"], { allow: methods.join(", ") })
      : failure(flag, 404, ["Not Found"]);
  return path === "/v1" || path.startsWith("/v1/") ? guard.withVendor(request, flag, reply) : toResponse(reply());
}

/** Does an Elysia route pattern such as /v1/leads/:lead_id match this path? */
function routeMatches(pattern: string, path: string): boolean {
  const want = pattern.split("/");
  const got = path.split("/");
  return want.length === got.length && want.every((segment, i) => segment.startsWith(":") ? got[i] !== "" : segment === got[i]);
}
