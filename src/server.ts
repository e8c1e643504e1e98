// Starts the service: database, bootstrap vendor, HTTP server; and stops it cleanly.
import { ensureBootstrapVendor } from "./auth/vendors.ts";
import type { Config } from "./config/index.ts";
import { openDatabase } from "./db/client.ts";
import { createApp } from "./http/app.ts";
import { failure, flagForPath, toResponse } from "./http/envelope.ts";
import type { Logger } from "./log/index.ts";
import { createMetrics, routeLabel } from "./metrics/index.ts";
import { startWorker } from "./worker/index.ts";

export interface RunningServer {
  url: URL;
  /** Stop taking requests, finish in-flight ones (within the shutdown timeout), close the database. */
  stop(): Promise<void>;
}

export async function startServer(config: Config, log: Logger): Promise<RunningServer> {
  const database = openDatabase(config.databasePath);
  const bootstrapped = await ensureBootstrapVendor(database.db, config.bootstrapVendor);
  if (bootstrapped) log.info("vendor_bootstrapped", { vendor: bootstrapped.name });
  const metrics = createMetrics();
  const { app, intake } = createApp({ config, database, log, metrics });
  const worker = config.worker ? startWorker({ config, sqlite: database.sqlite, commit: intake.commit, log, metrics }) : null;
  let stopping = false;

  const server = Bun.serve({
    hostname: config.host,
    port: config.port,
    // The contract's own limit (413 in the envelope) is enforced while reading; Bun's must never
    // answer first with its own body.
    maxRequestBodySize: Number.MAX_SAFE_INTEGER,
    tls: config.tlsCertFile && config.tlsKeyFile ? { cert: Bun.file(config.tlsCertFile), key: Bun.file(config.tlsKeyFile) } : undefined,
    async fetch(request) {
      const started = performance.now();
      const path = new URL(request.url).pathname;
      const response = stopping
        ? toResponse(failure(flagForPath(path), 503, ["Service is shutting down"], { "retry-after": "5", connection: "close" }))
        : await app.handle(request);
      metrics.httpRequests.inc({ route: routeLabel(path), status: response.status });
      log.info("request", { method: request.method, path, status: response.status, duration_ms: Math.round((performance.now() - started) * 100) / 100 });
      return response;
    },
    error(error) {
      log.error("server_error", { error: error.stack ?? error.message });
      return toResponse(failure("success_bit", 500, ["Internal server error"]));
    },
  });
  const scheme = config.tlsCertFile ? "https" : "http";
  const url = new URL(`${scheme}://${config.host.includes(":") ? `[${config.host}]` : config.host}:${server.port}`);
  log.info("listening", { url: url.origin, database: config.databasePath });

  return {
    url,
    async stop() {
      stopping = true;
      const finished = server.stop(false);
      const timedOut = await Promise.race([finished.then(() => false), Bun.sleep(config.shutdownTimeoutMs).then(() => true)]);
      if (timedOut) await server.stop(true);
      await worker?.stop(config.shutdownTimeoutMs);
      await intake.commit.drain();
      database.close();
      log.info("stopped", { timed_out: timedOut });
    },
  };
}
