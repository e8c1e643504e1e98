// Starts the service: database, bootstrap vendor, HTTP server; and stops it cleanly.
import { bootstrapSecretNotice, bootstrapUnchangedAction, ensureBootstrapVendor } from "./auth/vendors.ts";
import type { Config } from "./config/index.ts";
import { INTERNAL_ERROR, SHUTTING_DOWN, TEMPORARILY_UNAVAILABLE } from "./contract/texts.ts";
import { databaseForDisplay, openServiceBackend, type BackendStandIns, type ServiceBackend } from "./backend/index.ts";
import { openRetrying } from "./backend/open-retrying.ts";
import { healthWhileStarting } from "./health/routes.ts";
import { listenOrExplain, type ListenerSettings } from "./http/listen-error.ts";
import { startConsole, type ConsoleListener } from "./console/server.ts";
import { createApp } from "./app.ts";
import { failure, flagForPath, toResponse } from "./http/envelope.ts";
import { receivedRequest, routedFrom } from "./http/client-address.ts";
import { pathsAsSent, requestTarget, routableRequest } from "./http/routable-url.ts";
import { errorText, type Logger } from "./log/index.ts";
import { countAnswer, createMetrics, routeLabel } from "./metrics/index.ts";
import { newRequestId, REQUEST_ID_HEADER, requestIdOf } from "./http/request-id.ts";
import { openNote, type RequestNote } from "./http/request-note.ts";
import { createTally, NO_TALLY, tallyAnswer, type Tally } from "./stats/tally.ts";
import { createRefusalLog, NO_REFUSAL_LOG, type RefusalLog } from "./refusals/log.ts";
import { startWorker } from "./worker/index.ts";
import { runsInThread, startWorkerThread } from "./worker/thread-host.ts";
import { foregroundCounter } from "./worker/thread-messages.ts";
import { loadServicePolicy, type PolicyInForce } from "./policy-in-force/loader.ts";
import { ensureChecksSecret } from "./checks/secret.ts";
import { lazyPortalThread, type PortalThread } from "./portal-thread/index.ts";
import { stopHttp } from "./http/stop-http.ts";

export interface RunningServer {
  url: URL;
  /** The operator's console, on a listener of its own; null unless --console-port is set. */
  consoleUrl: URL | null;
  /**
   * Stop taking requests (late ones get 503 during the drain), finish in-flight ones, close the
   * database: all within the shutdown timeout, whatever fails.
   */
  stop(): Promise<StopOutcome>;
}

export interface StopOutcome {
  /** In-flight work outlived the timeout and was cut short. */
  timedOut: boolean;
  /** Why the database could not be closed cleanly; null when it was. */
  error: Error | null;
}

/** The share of the shutdown timeout kept for closing the database (at most this, at most half). */
const CLOSE_BUDGET_MS = 1_000;

/** What a test may pass instead: its own opened SQLite database (with limits of its own), the disk's free space. */
export type ServerStandIns = BackendStandIns;

export interface StartOptions {
  /** Aborted (SIGTERM while waiting for the database): startServer rejects with StartCancelled at once. */
  signal?: AbortSignal;
  /** A line for the person who started the service (the CLI's stderr): the bootstrap vendor's signing secret, once. */
  notice?: (line: string) => void;
}

/**
 * Listens first, then opens the database, retrying while it refuses (backend/open-retrying.ts):
 * meanwhile /healthz answers 200, /readyz 503 and every other path 503 in its envelope. Once the
 * database is open and migrated: the bootstrap vendor, the console, the app's routes, the worker.
 * Resolves when all of that is up; rejects with a StartError (a port, a host, a TLS file) or a
 * DatabaseOpenError the operator must fix, or StartCancelled.
 */
export async function startServer(config: Config, log: Logger, standIns: ServerStandIns = {}, options: StartOptions = {}): Promise<RunningServer> {
  let server: Bun.Server<unknown> | undefined;
  const foregroundLoad = () => server?.pendingRequests ?? 0;
  // The same count for the worker thread, which cannot ask the server; beside it, the turns its connection takes with intake's (db/write-turns.ts).
  const foreground = foregroundCounter();
  const metrics = createMetrics();
  const peerAddress = (request: Request) => server?.requestIP(receivedRequest(request))?.address;
  let stopping = false;
  let stopped: Promise<StopOutcome> | undefined;
  let consoleListener: ConsoleListener | null = null;
  let policy: PolicyInForce | undefined;
  let portal: PortalThread | undefined;
  // Nothing to count until the database is open.
  let tally: Tally = NO_TALLY;
  let refusals: RefusalLog = NO_REFUSAL_LOG;

  /**
   * The one place a request is accounted for: its answer gets the request id, and its note (what
   * authentication and the route said of it: http/request-note.ts) becomes its log line and metrics.
   */
  async function respond(
    request: Request,
    answer: (routable: Request, path: string) => Response | Promise<Response>,
    /** The path of a route answered without Elysia (Bun.serve's route key: the path as sent, as the URL would give it). */
    routePath?: string,
  ): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const note: RequestNote = {};
    // Until the URL is parsed, the target as sent stands for the path (a failure there is answered
    // below, in the envelope of the path's route, rather than by `error` with none).
    let path = routePath ?? requestTarget(request).split("?")[0]!;
    let response: Response;
    foreground.begin();
    try {
      // Only Elysia reads the URL (routable-url.ts).
      const routable = routePath === undefined ? routedFrom(request, routableRequest(request)) : request;
      openNote(routable, note);
      if (routePath === undefined) path = new URL(routable.url).pathname;
      response = stopping
        ? toResponse(failure(flagForPath(path), 503, [SHUTTING_DOWN], { "retry-after": "5", connection: "close" }))
        : await answer(routable, path);
    } catch (error) {
      // The app's own error handler failed too (a database error while answering an unknown
      // path, say). Answered here rather than in `error` below, which cannot see the path.
      log.error("server_error", { path, request_id: requestId, error: errorText(error) });
      response = toResponse(failure(flagForPath(path), 500, [INTERNAL_ERROR]));
    }
    foreground.end();
    response.headers.set(REQUEST_ID_HEADER, requestId);
    const ms = performance.now() - started;
    const route = routeLabel(path, note.test);
    countAnswer(metrics, route, response.status, ms / 1000, note);
    tallyAnswer(tally, route, note);
    refusals.record(route, response.status, requestId, note);
    log.info("request", {
      method: request.method,
      path,
      status: response.status,
      duration_ms: Math.round(ms * 100) / 100,
      request_id: requestId,
      vendor: note.vendor,
      lead_id: note.leadId,
      outcome: note.outcome,
      reason: note.reason,
      test: note.test,
    });
    return response;
  }

  const starting = (_request: Request, path: string) =>
    healthWhileStarting(path) ?? toResponse(failure(flagForPath(path), 503, [TEMPORARILY_UNAVAILABLE], { "retry-after": "5" }));
  const listener = listenOrExplain(apiListener(config), () => Bun.serve({ ...serveOptions(), fetch: (request) => respond(request, starting) }));
  server = listener;
  const scheme = config.tlsCertFile ? "https" : "http";
  const url = new URL(`${scheme}://${config.host.includes(":") ? `[${config.host}]` : config.host}:${listener.port}`);
  const opened = await openRetrying(
    () =>
      openServiceBackend(config, log, {
        foregroundBusy: () => foregroundLoad() > 0,
        // Resolved from src/: in the compiled binary every module has the entry's URL, and the
        // thread's entry (listed in package.json "build") sits at db/ below it, as it does here.
        checkpointThreadUrl: new URL("./db/checkpoint-thread.ts", import.meta.url),
        standIns,
        writeTurns: config.worker && runsInThread(config, standIns.database !== undefined) ? foreground.turns : null,
      }),
    { log, listening: url.origin, signal: options.signal },
  ).catch((error: unknown) => {
    listener.stop(true);
    throw error;
  });
  tally = createTally({ store: opened.store, log });
  refusals = createRefusalLog({ store: opened.store, log });
  // Whatever fails from here (the bootstrap vendor, the console's port) must not leave the backend
  // open: its pool, reload timer, checkpoint thread and disk watcher would outlive the failed start.
  try {
    await bootstrapVendor(config, opened, log, options.notice);
    policy = await loadServicePolicy(opened.store, config, log);
    const checksSecret = await ensureChecksSecret(opened.store);
    // Started by the first /portal request; resolved as the checkpointer's thread above, listed in package.json "build" too.
    portal = lazyPortalThread({ config, log, threadUrl: new URL("./portal-thread/thread.ts", import.meta.url), policyVersion: () => policy!.version() });
    const portalHandler = (request: Request) => portal!.handle(request, peerAddress(request));
    const app = createApp({ config, backend: opened, log, metrics, peerAddress, policy, checksSecret, portal: portalHandler });
    consoleListener = listenOrExplain({ role: "console", host: config.consoleHost, port: config.consolePort ?? 0 }, () =>
      startConsole({ config, store: opened.store, vendorsChanged: opened.vendorsChanged, log, apiOrigin: url.origin }),
    );
    listener.reload({
      ...serveOptions(),
      // Routed on the request target as sent; see routable-url.ts.
      // An intake route's POST goes straight to its handler (app.ts `intake`), with its path as sent.
      routes: Object.fromEntries(
        pathsAsSent(app.routes.map((route) => route.path)).map((path) => {
          const intake = app.intake.get(path.endsWith("/") ? path.slice(0, -1) : path);
          return [path, (request: Request) => (intake && request.method === "POST" ? respond(request, intake, path) : respond(request, app.handle))];
        }),
      ),
      fetch: (request) => respond(request, app.notFound),
    });
  } catch (error) {
    listener.stop(true);
    policy?.stop();
    await portal?.stop(CLOSE_BUDGET_MS);
    await tally.stop();
    await refusals.stop();
    await consoleListener?.stop();
    await opened.close(Date.now() + CLOSE_BUDGET_MS).catch((closeError: unknown) => log.error("shutdown_failed", { error: errorText(closeError) }));
    throw error;
  }
  const worker = !config.worker
    ? null
    : runsInThread(config, standIns.database !== undefined)
      ? // Resolved from src/ as the checkpoint thread's entry is (see above; package.json "build").
        startWorkerThread({ config, log, metrics, tally, threadUrl: new URL("./worker/thread.ts", import.meta.url), foreground: foreground.shared })
      : startWorker({ config, store: opened.store, log, metrics, tally, foregroundLoad, batches: opened.workerBatches, policy });
  if (consoleListener) log.info("console_listening", { url: consoleListener.url.origin });
  log.info("listening", { url: url.origin, database: databaseForDisplay(config.databasePath) });

  return {
    url,
    consoleUrl: consoleListener?.url ?? null,
    stop() {
      stopped ??= (async () => {
        stopping = true;
        const outcome = await shutDown();
        if (outcome.error) log.error("shutdown_failed", { error: errorText(outcome.error), action: "exiting anyway" });
        log.info("stopped", { timed_out: outcome.timedOut, clean: outcome.error === null });
        return outcome;
      })();
      return stopped;
    },
  };

  /** What the listener keeps from start-up to shutdown (reload() replaces the handlers only). */
  function serveOptions() {
    return {
      hostname: config.host,
      port: config.port,
      // The contract's own limit (413 in the envelope) is enforced while reading; Bun's must never
      // answer first with its own body.
      maxRequestBodySize: Number.MAX_SAFE_INTEGER,
      tls: config.tlsCertFile && config.tlsKeyFile ? { cert: Bun.file(config.tlsCertFile), key: Bun.file(config.tlsKeyFile) } : undefined,
      // The last resort, for a throw in respond() outside its try; it has no path, nor the request's id.
      error(error: Error) {
        const requestId = newRequestId();
        log.error("server_error", { request_id: requestId, error: errorText(error) });
        return toResponse(failure("success_bit", 500, [INTERNAL_ERROR], { [REQUEST_ID_HEADER]: requestId }));
      },
    };
  }

  /**
   * In-flight work gets the shutdown timeout less the close budget; closing the database gets the
   * rest. A step that fails or hangs (SQLITE_FULL at the final checkpoint) is reported, not waited
   * for: the caller exits.
   */
  async function shutDown(): Promise<StopOutcome> {
    const started = Date.now();
    const end = started + config.shutdownTimeoutMs;
    const workDeadline = end - Math.min(CLOSE_BUDGET_MS, config.shutdownTimeoutMs / 2);
    const left = (until: number) => Math.max(0, until - Date.now());
    let cutShort = false;
    const closing = (async () => {
      // HTTP and the worker wind down side by side, and the worker stops claiming new work at once.
      const stopped = await Promise.all([stopHttp(listener, workDeadline, config.shutdownDrainMs), worker?.stop(left(workDeadline)), consoleListener?.stop()]);
      cutShort = stopped.some(Boolean);
      // Its requests have been answered: its connections close before the service's.
      await portal?.stop(left(workDeadline));
      policy?.stop();
      // The last counts, once nothing more is counted (a failure is logged: chart figures only).
      await tally.stop();
      await refusals.stop();
      await opened.close(workDeadline);
    })();
    let timer: Timer | undefined;
    const timeout = new Promise<Error>((resolve) => {
      timer = setTimeout(() => resolve(new Error(`shutdown did not finish within ${config.shutdownTimeoutMs} ms`)), left(end));
    });
    const error = await Promise.race([
      closing.then(
        () => null,
        (failure: unknown) => (failure instanceof Error ? failure : new Error(String(failure))),
      ),
      timeout,
    ]);
    clearTimeout(timer);
    return { timedOut: cutShort || Date.now() >= end, error };
  }
}

/**
 * Creates the configured vendor unless one has that name. At creation its signing secret is
 * printed once (`notice`, stderr): the one moment it can be shown, for the tester who points the
 * mock receiver at it; it is never a log field, since logs are shipped and kept. An existing vendor
 * is left as it is, and the log says so and how to get a secret.
 */
async function bootstrapVendor(config: Config, backend: ServiceBackend, log: Logger, notice: (line: string) => void = () => {}): Promise<void> {
  if (!config.bootstrapVendor) return;
  const { vendor, created } = await ensureBootstrapVendor(backend.store, config.bootstrapVendor);
  if (created) {
    log.info("vendor_bootstrapped", { vendor: vendor.name });
    notice(bootstrapSecretNotice(vendor.name, vendor.signingSecret));
  } else {
    log.warn("vendor_bootstrap_unchanged", { vendor: vendor.name, action: bootstrapUnchangedAction(vendor.name) });
  }
  // Also when another instance starting beside this one created the vendor first: its row may be
  // newer than the vendors this backend loaded, and the next reload is up to a second away.
  await backend.vendorsChanged();
}

function apiListener(config: Config): ListenerSettings {
  const tls = config.tlsCertFile && config.tlsKeyFile ? { certFile: config.tlsCertFile, keyFile: config.tlsKeyFile } : undefined;
  return { role: "api", host: config.host, port: config.port, tls };
}
