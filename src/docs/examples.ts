/** The lead id shown in examples (a UUIDv7, as the service makes them). The example lead is the lead schema's (intake/lead-schema.ts). */
export const EXAMPLE_LEAD_ID = "0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69";
