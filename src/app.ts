// The HTTP application, composed: every capability's routes, the vendor authentication they share,
// and the one error handler, where every failure becomes the contract's envelope (docs/contract.md §1).
// http/ holds the mechanisms; the features and the docs are put together only here.
import { Elysia, NotFoundError } from "elysia";
import { createAuthenticator } from "./auth/authenticator.ts";
import { createRateLimiter } from "./auth/rate-limit.ts";
import { createVendorAuth } from "./http/vendor-auth.ts";
import type { Config } from "./config/index.ts";
import { isDatabaseUnavailable, type ServiceBackend } from "./backend/index.ts";
import { INTERNAL_ERROR, TEMPORARILY_UNAVAILABLE } from "./contract/texts.ts";
import { apiDocs } from "./docs/index.ts";
import { operationDocs } from "./docs/operations.ts";
import { healthRoutes } from "./health/routes.ts";
import { intakeHandlers, intakeRoutes, type IntakeHandler } from "./intake/routes.ts";
import { FullCountersSeen } from "./intake/caps.ts";
import type { IntakeDeps } from "./intake/service.ts";
import { leadRoutes } from "./leads/lookup.ts";
import { errorText, type Logger } from "./log/index.ts";
import { countCheckResult, type Metrics } from "./metrics/index.ts";
import { newSigningSecret } from "./callbacks/signature.ts";
import { createCheckThread } from "./checks/thread-host.ts";
import { intakeChecks } from "./checks/intake.ts";
import { metricsRoutes } from "./metrics/routes.ts";
import { createClientAddress, type PeerAddress } from "./http/client-address.ts";
import { EnvelopeError, failure, flagForPath, ROUTE_JSON_HEADERS, success, toResponse, type Reply } from "./http/envelope.ts";
import { noted } from "./http/request-note.ts";
import { intakePolicy } from "./policy-in-force/intake.ts";
import type { PolicyInForce } from "./policy-in-force/loader.ts";
import { isV1, methodNotAllowed, notFound } from "./http/unmatched.ts";
import { createPortal } from "./portal/server.ts";

export interface AppDeps {
  config: Config;
  /** The database (its store is shared with the worker). */
  backend: ServiceBackend;
  log: Logger;
  metrics: Metrics;
  /** The socket's peer, from the server; without it every client counts as one (app.handle in tests). */
  peerAddress?: PeerAddress;
  clock?: () => number;
  /** The acceptance policy in force (policy-in-force/loader.ts); without it, none (nothing more is refused). */
  policy?: Pick<PolicyInForce, "current" | "version">;
  /** The portal's handler: its own thread's (server.ts, portal-thread/); without it (tests of the app), the portal runs here. */
  portal?: (request: Request) => Promise<Response>;
  /** The database's `checks` signing secret (checks/secret.ts); an app built without one (tests) signs with one of its own. */
  checksSecret?: string;
}

export function createApp(deps: AppDeps) {
  const { config, backend, log } = deps;
  const { store } = backend;
  const clock = deps.clock ?? Date.now;
  const policyInForce = deps.policy;
  const clientAddress = createClientAddress(config.trustedProxies, deps.peerAddress ?? (() => undefined));
  const auth = createVendorAuth({
    authenticator: createAuthenticator(backend.credentialsOf, { clock }),
    rateLimiter: createRateLimiter({ perSecond: config.rateLimitPerSecond, burst: config.rateLimitBurst }, clock),
    clientAddress,
    isVendor: (name) => backend.credentialsOf(name) !== null,
  });
  const intake: IntakeDeps = {
    store,
    duplicateWindowMs: config.duplicateWindowMs,
    holdPeriodMs: config.holdPeriodMs,
    testHoldPeriodMs: config.testHoldPeriodMs,
    allowPrivateCallbacks: config.allowPrivateCallbacks,
    clock,
    batches: backend.intakeBatches,
    policy: deps.policy && intakePolicy(deps.policy, checksAtIntake(deps, clock)),
    fullCounters: new FullCountersSeen(),
  };

  const intakeHandling = intakeHandlers(intake, config.bodyLimitBytes);

  // The operations' documentation, its examples from the texts and this configuration (the 413's limit).
  const docs = operationDocs({ bodyLimitBytes: config.bodyLimitBytes });
  const app = new Elysia()
    .onError(({ error, request, path }) => answerFailure(error, request, path))
    .use(apiDocs())
    .use(healthRoutes(backend.ready))
    .use(
      metricsRoutes(
        deps.metrics,
        {
          store,
          ready: backend.ready,
          policy: policyInForce && (() => policyInForce.current()),
          policyVersion: policyInForce && (() => policyInForce.version()),
        },
        clock,
      ),
    )
    .use(
      intakeRoutes(auth, intakeHandling, {
        prePing: docs["POST /v1/prePing"],
        postLead: docs["POST /v1/postLead"],
        testPrePing: docs["POST /v1/test/prePing"],
        testPostLead: docs["POST /v1/test/postLead"],
      }),
    )
    .use(leadRoutes(auth, store, docs["GET /v1/leads/:lead_id"]));
  // The vendor portal: its own sessions, forms and pages (portal/server.ts); the body is its to read.
  const portal = deps.portal ?? createPortal({ config, store, log, clock, clientAddress, policy: policyInForce });
  for (const path of ["/portal", "/portal/*"]) app.all(path, ({ request }) => portal(request), { parse: "none", detail: { hide: true } });
  if (config.benchNoopRoute) app.post("/bench/noop", () => toResponse(success("success_bit", "ok")), { parse: "none", detail: { hide: true } });
  // Declared last, from the routes above: /v1's after authentication, as the routes themselves.
  app
    .use(
      methodNotAllowed(
        app.routes.filter((route) => isV1(route.path)),
        auth.plugin,
      ),
    )
    .use(methodNotAllowed(app.routes.filter((route) => !isV1(route.path))));

  /** Every failure, in the envelope of its path's route (docs/contract.md §1), its texts noted for the request's log line. */
  async function answerFailure(error: unknown, request: Request, path: string): Promise<Response> {
    return toResponse(noted(request, await failureReply(error, request, path)));
  }

  async function failureReply(error: unknown, request: Request, path: string): Promise<Reply> {
    const flag = flagForPath(path);
    const failed = error instanceof NotFoundError ? await notFound(auth.vendorOf, request, path).catch((refusal: unknown) => refusal) : error;
    if (failed instanceof EnvelopeError) return failed.reply(flag);
    if (isDatabaseUnavailable(failed)) return failure(flag, 503, [TEMPORARILY_UNAVAILABLE], { "retry-after": "1" });
    log.error("unhandled_error", { method: request.method, path, error: errorText(failed) });
    return failure(flag, 500, [INTERNAL_ERROR]);
  }

  /**
   * An intake route's POST answered as Elysia answers it (the vendor, then the handler; a failure
   * in the envelope), without Elysia's routing, context, hooks and response mapping: with them
   * gone, prePing's CPU per request fell 34 → 29 µs (bench/README.md, issue 30).
   */
  const directly =
    (handle: IntakeHandler) =>
    (request: Request, path: string): Promise<Response> => {
      let replied: Promise<Reply>;
      try {
        const vendor = auth.vendorOf(request);
        replied = vendor instanceof Promise ? vendor.then((admitted) => handle(request, admitted)) : handle(request, vendor);
      } catch (error) {
        replied = Promise.reject(error);
      }
      return replied.then(
        (reply) => toResponse(reply, ROUTE_JSON_HEADERS),
        (error: unknown) => answerFailure(error, request, path),
      );
    };

  return Object.assign(app, {
    /** For a request whose target, as sent, is none of the app's paths (see routable-url.ts). */
    notFound: (request: Request, path: string) => answerFailure(new NotFoundError(), request, path),
    /** The intake routes' POSTs by path, for the server to answer without Elysia (app.handle answers them alike). */
    intake: new Map([...intakeHandling].map(([path, handle]) => [path, directly(handle)])),
  });
}

/**
 * The checks' thread's entry, listed in package.json's "build": resolved here, at src/'s root as
 * server.ts resolves the other threads', since in the compiled binary a module's import.meta.url
 * is that root's, whatever folder the module came from.
 */
const CHECKS_THREAD_URL = new URL("./checks/thread.ts", import.meta.url);

/**
 * Intake's external checks (checks/intake.ts), asked on the checks' thread (checks/thread-host.ts):
 * signed with the checks secret, each result counted, request errors, pauses and the thread's
 * failures logged.
 */
function checksAtIntake(deps: AppDeps, clock: () => number) {
  const { log, metrics } = deps;
  const secret = deps.checksSecret ?? newSigningSecret();
  const thread = createCheckThread({ secret: () => secret, clock, allowPrivate: deps.config.allowPrivateCallbacks, log, threadUrl: CHECKS_THREAD_URL });
  return intakeChecks(thread, (result) => {
    countCheckResult(metrics, result);
    if (result.source === "request" && result.answer.outcome === "error") log.warn("check_error", { check: result.check.name, error: result.answer.error });
  });
}
