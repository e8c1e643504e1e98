// What the console counts (stats/tally.ts) and how it names each kind: one definition, read by the
// recording sites, the rollup's readers and the charts.

/** postLead's answers (and a 401 or 429 of either /v1 route, where authentication ends a request). */
export const INTAKE_KINDS = ["accepted", "replayed", "invalid", "blocked", "idempotency_conflict", "unauthorized", "rate_limited"] as const;
/** postLead's refusals a vendor is counted for (a 401's vendor is not known). */
export const REFUSED_KINDS = ["invalid", "blocked", "idempotency_conflict", "rate_limited"] as const satisfies readonly OutcomeKind[];
/** Final results, with the time from intake to decision. */
export const DECISION_KINDS = ["decided_accepted", "decided_rejected"] as const;
/** Callback attempts by result, with their duration. */
export const CALLBACK_KINDS = ["delivered", "retry", "dead"] as const;

export type CallbackKind = (typeof CALLBACK_KINDS)[number];
export type OutcomeKind = (typeof INTAKE_KINDS)[number] | (typeof DECISION_KINDS)[number] | CallbackKind;

export const KIND_LABELS: Record<OutcomeKind, string> = {
  accepted: "Accepted (200)",
  replayed: "Replayed (200)",
  invalid: "Invalid (400)",
  blocked: "Duplicate or suppressed (422)",
  idempotency_conflict: "Idempotency conflict (422)",
  unauthorized: "Unauthorized (401)",
  rate_limited: "Rate limited (429)",
  decided_accepted: "Accepted (final)",
  decided_rejected: "Rejected (final)",
  delivered: "Delivered",
  retry: "Retry",
  dead: "Dead",
};

/** An attempt's result that is counted (not a lost lease: its attempt was not recorded). */
export const isCallbackKind = (result: string): result is CallbackKind => (CALLBACK_KINDS as readonly string[]).includes(result);
