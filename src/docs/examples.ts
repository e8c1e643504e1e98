/** The lead id shown in examples (a UUIDv7, as the service makes them). The example lead is the lead schema's (intake/lead-schema.ts). */
export const EXAMPLE_LEAD_ID = "0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69";

/**
 * The operator's policy refusals the API page shows (docs/contract.md §10): the texts are the
 * operator's `reason`s, so these are illustrations, produced by test/docs/examples-answered.test.ts
 * under a policy with such entries.
 */
export const EXAMPLE_POLICY_REASONS = {
  rules: ["State not served: TX", "Rejected by rule: utility-served"],
  schedule: "Outside hours of operation: call-center",
  cap: "Cap reached: acme-daily",
} as const;
