// The service's metrics (CONTRACT §9): requests by route and status, leads by outcome, callback
// attempts by result, and the callback queue's depth and oldest due item, read at scrape time.
import { op, type Script } from "../db/script.ts";
import type { QueueDepth } from "../store/callbacks/index.ts";
import type { Store, Tables } from "../store/index.ts";
import { Counter, renderGauge } from "./registry.ts";

export function createMetrics() {
  return {
    httpRequests: new Counter("lead_ingress_http_requests_total", "HTTP requests by route and status.", ["route", "status"] as const),
    intake: new Counter("lead_ingress_intake_total", "postLead answers by outcome (accepted, replayed, invalid, blocked, idempotency_conflict).", [
      "outcome",
    ] as const),
    finalResults: new Counter("lead_ingress_final_results_total", "Leads decided, by final status.", ["status"] as const),
    callbackAttempts: new Counter("lead_ingress_callback_attempts_total", "Callback delivery attempts by result (delivered, retry, dead, lease_lost).", [
      "result",
    ] as const),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

const V1_ROUTES = new Set(["/v1/prePing", "/v1/postLead"]);

/** A path as a metrics label: known routes as themselves, lead ids folded, anything else "other". */
export function routeLabel(path: string): string {
  if (V1_ROUTES.has(path) || path === "/healthz" || path === "/readyz" || path === "/metrics") return path;
  if (path.startsWith("/v1/leads/")) return "/v1/leads/:lead_id";
  if (path === "/swagger" || path.startsWith("/swagger/")) return "/swagger";
  return "other";
}

function* readings(t: Tables, now: number): Script<{ queue: QueueDepth; pendingLeads: number }> {
  return { queue: yield* op(t.callbacks.depth(now)), pendingLeads: yield* op(t.leads.countPending()) };
}

export async function renderMetrics(metrics: Metrics, store: Store, now: number): Promise<string> {
  // Counters before the gauges' read: an event counted shows its effect in the same scrape's gauges
  // (on PostgreSQL the read is awaited while deliveries go on and are counted).
  const counters = Object.values(metrics).map((counter) => counter.render());
  const { queue, pendingLeads } = await store.read((t) => readings(t, now));
  return `${[
    ...counters,
    renderGauge({
      name: "lead_ingress_callback_queue_depth",
      help: "Callbacks not yet delivered or dead (due now or waiting to retry).",
      value: queue.pending,
    }),
    renderGauge({ name: "lead_ingress_callback_due", help: "Callbacks due for an attempt now.", value: queue.due }),
    renderGauge({
      name: "lead_ingress_callback_oldest_pending_age_seconds",
      help: "Time since the final result of the oldest undelivered callback (0 when none).",
      value: queue.oldestDecidedAt === null ? 0 : Math.max(0, (now - queue.oldestDecidedAt) / 1000),
    }),
    renderGauge({ name: "lead_ingress_leads_pending", help: "Leads awaiting their final result.", value: pendingLeads }),
  ].join("\n\n")}\n`;
}
