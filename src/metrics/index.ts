// The service's metrics (docs/contract.md §9): requests by route and status, leads by vendor and outcome,
// refused credentials by vendor, callback attempts by result, and, read at scrape time, the callback
// queue's depth and oldest due item, whether storage takes writes, and each cap's use and maximum.
// Vendor labels only ever carry a known vendor's name or "unknown" (never a name a stranger sent),
// so their number is bounded by the vendors table; each known vendor's series are there at 0 from the scrape after it is added.
import { op, type Script } from "../db/script.ts";
import type { CheckResult } from "../checks/index.ts";
import type { QueueDepth } from "../store/callbacks/index.ts";
import type { Store, Tables } from "../store/index.ts";
import { AUTH_REFUSALS, UNKNOWN_VENDOR, type AuthRefusal, type RequestNote } from "../http/request-note.ts";
import { VERSION } from "../config/build-info.ts";
import type { CompiledPolicy } from "../policy/index.ts";
import { renderCapGauges } from "./cap-gauges.ts";
import { Counter, Histogram, renderGauge } from "./registry.ts";

const TEST_POST_LEAD = "/v1/test/postLead";
const INTAKE_OUTCOMES = ["accepted", "replayed", "invalid", "blocked", "idempotency_conflict"];
const FINAL_STATUSES = ["accepted", "rejected"];
const ATTEMPT_RESULTS = ["delivered", "retry", "dead", "lease_lost"];
const CERTIFICATE_OUTCOMES = ["verified", "not_verified", "unreachable"];
const CHECK_OUTCOMES = ["pass", "fail", "error"];
const each = <L extends string>(label: L, values: string[]) => values.map((value) => ({ [label]: value }) as Record<L, string>);

export function createMetrics() {
  return {
    httpRequests: new Counter("lead_ingress_http_requests_total", "HTTP requests by route and status.", ["route", "status"] as const),
    httpRequestDuration: new Histogram(
      "lead_ingress_http_request_duration_seconds",
      "Time from a request's arrival to its answer, by route.",
      ["route"] as const,
      [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    ),
    intake: new Counter("lead_ingress_intake_total", "postLead answers by vendor and outcome (accepted, replayed, invalid, blocked, idempotency_conflict).", [
      "vendor",
      "outcome",
    ] as const),
    // Test mode's traffic (docs/contract.md §12) apart: the series above, which dashboards and alerts read, stay the business's.
    testIntake: new Counter(
      "lead_ingress_test_intake_total",
      "Test postLeads' answers (X-Test-Lead or /v1/test/postLead) by vendor and outcome, as lead_ingress_intake_total counts real ones.",
      ["vendor", "outcome"] as const,
    ),
    authRefusals: new Counter(
      "lead_ingress_auth_refusals_total",
      'Refused credentials by vendor ("unknown" when they name none) and reason (unauthorized, too_many_failures, rate_limited).',
      ["vendor", "reason"] as const,
      AUTH_REFUSALS.map((reason) => ({ vendor: UNKNOWN_VENDOR, reason })),
    ),
    // Names come from the operator's policy document (bounded by it): never a text a vendor sent.
    policyRefusals: new Counter(
      "lead_ingress_policy_refusals_total",
      "postLead refusals by the acceptance policy, by kind (rule, schedule, cap, check) and the entry's name in the operator's document.",
      ["kind", "name"] as const,
    ),
    // Check names come from the operator's document too (docs/checks.md "Metrics").
    checkAnswers: new Counter(
      "lead_ingress_check_answers_total",
      "External checks' answers by check and outcome (pass, fail, error): requests to the service and errors without one (paused, busy); not the cache's.",
      ["check", "outcome"] as const,
    ),
    checkDuration: new Histogram(
      "lead_ingress_check_duration_seconds",
      "Time a lead waited for a check's request, from sending it to its answer, error or timeout, by check.",
      ["check"] as const,
      [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    ),
    checkCacheHits: new Counter("lead_ingress_check_cache_hits_total", "Checks answered from the per-phone cache, with no request, by check.", [
      "check",
    ] as const),
    finalResults: new Counter("lead_ingress_final_results_total", "Leads decided, by final status.", ["status"] as const, each("status", FINAL_STATUSES)),
    testFinalResults: new Counter(
      "lead_ingress_test_final_results_total",
      "Test leads decided, by final status.",
      ["status"] as const,
      each("status", FINAL_STATUSES),
    ),
    intakeToDecision: new Histogram(
      "lead_ingress_intake_to_decision_seconds",
      "Time from a lead's intake to its final result (the hold period and the worker's lag).",
      [] as const,
      [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 86400],
      [{}],
    ),
    callbackAttempts: new Counter(
      "lead_ingress_callback_attempts_total",
      "Callback delivery attempts by result (delivered, retry, dead, lease_lost).",
      ["result"] as const,
      each("result", ATTEMPT_RESULTS),
    ),
    callbackAttemptDuration: new Histogram(
      "lead_ingress_callback_attempt_duration_seconds",
      "Time a callback attempt took, from its request to the receiver's answer or the failure, by result.",
      ["result"] as const,
      [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      each("result", ATTEMPT_RESULTS),
    ),
    certificateVerifications: new Counter(
      "lead_ingress_certificate_verifications_total",
      "Consent certificate verifications during the hold, by provider and outcome (verified, not_verified, unreachable).",
      ["provider", "outcome"] as const,
      CERTIFICATE_OUTCOMES.map((outcome) => ({ provider: "trustedform", outcome })),
    ),
    certificateVerificationDuration: new Histogram(
      "lead_ingress_certificate_verification_duration_seconds",
      "Time one certificate verification request took, from the request to the provider's answer or the failure, by provider.",
      ["provider"] as const,
      [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      [{ provider: "trustedform" }],
    ),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;

/** A vendor's series at 0, so a rate over them exists before its first request. */
function showVendor(metrics: Metrics, vendor: string): void {
  for (const outcome of INTAKE_OUTCOMES) metrics.intake.show({ vendor, outcome });
  for (const reason of AUTH_REFUSALS) metrics.authRefusals.show({ vendor, reason });
}

const isAuthRefusal = (outcome: string): outcome is AuthRefusal => (AUTH_REFUSALS as readonly string[]).includes(outcome);

/** Counts an answered request: by route and status, its duration, and what its note says became of it. */
export function countAnswer(metrics: Metrics, route: string, status: number, seconds: number, note: RequestNote): void {
  metrics.httpRequests.inc({ route, status });
  metrics.httpRequestDuration.observe({ route }, seconds);
  const { outcome, vendor = UNKNOWN_VENDOR } = note;
  if (outcome === undefined) return;
  if (isAuthRefusal(outcome)) metrics.authRefusals.inc({ vendor, reason: outcome });
  else if (route === "/v1/postLead") {
    metrics.intake.inc({ vendor, outcome });
    for (const { kind, name } of note.refusal?.refusedBy ?? []) metrics.policyRefusals.inc({ kind, name });
  } else if (route === TEST_POST_LEAD) metrics.testIntake.inc({ vendor, outcome });
}

/** Counts a check's result for a lead: from the cache a hit, else an answer by outcome, and a request's wait. */
export function countCheckResult(metrics: Metrics, result: CheckResult): void {
  const check = result.check.name;
  // A check's series all appear at its first result, so a rate over them (the alert's error
  // ratio, the cache's hits) exists before its first error or hit.
  metrics.checkCacheHits.show({ check });
  for (const outcome of CHECK_OUTCOMES) metrics.checkAnswers.show({ check, outcome });
  if (result.source === "cache") {
    metrics.checkCacheHits.inc({ check });
    return;
  }
  metrics.checkAnswers.inc({ check, outcome: result.answer.outcome });
  if (result.source === "request") metrics.checkDuration.observe({ check }, result.durationMs / 1000);
}

const V1_ROUTES = new Set(["/v1/prePing", "/v1/postLead", "/v1/test/prePing", TEST_POST_LEAD]);

/**
 * A path as a metrics label: known routes as themselves, lead ids folded, anything else "other".
 * A test request (`test`: X-Test-Lead on a real route) is labelled as its /v1/test/ route, so the
 * real routes' series, the console's counts (stats/) and the refusal log count real traffic only.
 */
export function routeLabel(path: string, test = false): string {
  if (test && (path === "/v1/prePing" || path === "/v1/postLead")) return `/v1/test${path.slice(3)}`;
  if (V1_ROUTES.has(path) || path === "/healthz" || path === "/readyz" || path === "/metrics") return path;
  if (path.startsWith("/v1/leads/")) return "/v1/leads/:lead_id";
  if (path === "/swagger" || path.startsWith("/swagger/")) return "/swagger";
  if (path === "/portal" || path.startsWith("/portal/")) return "/portal";
  return "other";
}

function* readings(t: Tables, now: number): Script<{ queue: QueueDepth; pendingLeads: number; deadCallbacks: number; pausedEndpoints: number }> {
  return {
    queue: yield* op(t.callbacks.depth(now)),
    pendingLeads: yield* op(t.leads.countPending()),
    deadCallbacks: yield* op(t.callbacks.countDead()),
    pausedEndpoints: yield* op(t.pausedEndpoints.count()),
  };
}

/** What a scrape reads besides the counters: the store, and readiness (the backend's, as /readyz answers it). */
export interface ScrapeSources {
  store: Store;
  ready: () => boolean | Promise<boolean>;
  /** The acceptance policy in force, whose caps' use is read; without it, no cap series. */
  policy?: () => CompiledPolicy;
  /** The version of that policy (0: none imported), so an operator or a replay can see an import take effect. */
  policyVersion?: () => number;
}

export async function renderMetrics(metrics: Metrics, sources: ScrapeSources, now: number): Promise<string> {
  const vendors = await sources.store.read((t) => op(t.vendors.list()));
  for (const vendor of vendors) showVendor(metrics, vendor.name);
  // Counters before the gauges' read: an event counted shows its effect in the same scrape's gauges
  // (on PostgreSQL the read is awaited while deliveries go on and are counted).
  const counters = Object.values(metrics).map((counter) => counter.render());
  const [{ queue, pendingLeads, deadCallbacks, pausedEndpoints }, ready, caps] = await Promise.all([
    sources.store.read((t) => readings(t, now)),
    sources.ready(),
    renderCapGauges(sources.store, sources.policy?.(), now),
  ]);
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
    renderGauge({
      name: "lead_ingress_callbacks_dead",
      help: "Callbacks whose retries ran out (or 410 Gone), waiting for an operator to replay or discard them.",
      value: deadCallbacks,
    }),
    renderGauge({
      // No labels: the endpoints (vendor, origin, path) are listed by `lead-ingress callbacks paused` and the console.
      name: "lead_ingress_callback_endpoints_paused",
      help: "Callback endpoints paused after the attempts of several callbacks failed in a row; their callbacks wait, unsent.",
      value: pausedEndpoints,
    }),
    renderGauge({
      name: "lead_ingress_ready",
      help: "1 while /readyz answers 200 (the database answers and takes writes); 0 while the disk is full or storage has failed.",
      value: ready ? 1 : 0,
    }),
    renderGauge({
      name: "lead_ingress_policy_version",
      help: "The version of the acceptance policy this instance applies (0: none imported); it follows `rules import` within about a second.",
      value: sources.policyVersion?.() ?? 0,
    }),
    ...caps,
    renderGauge({ name: "lead_ingress_build_info", help: "The running version (always 1).", value: 1, labels: { version: VERSION } }),
  ].join("\n\n")}\n`;
}
