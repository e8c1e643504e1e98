// GET /metrics for Prometheus. Counts only, no personal data, so no authentication (like /healthz);
// keep it off the public interface with the listen address or a reverse proxy. Documented in the
// docs/operations.md, not on the vendors' API page.
import { Elysia } from "elysia";
import { renderMetrics, type Metrics, type ScrapeSources } from "./index.ts";

export function metricsRoutes(metrics: Metrics, sources: ScrapeSources, clock: () => number) {
  return new Elysia({ name: "metrics" }).get(
    "/metrics",
    async () => new Response(await renderMetrics(metrics, sources, clock()), { headers: { "content-type": "text/plain; version=0.0.4; charset=utf-8" } }),
    { detail: { hide: true } },
  );
}
