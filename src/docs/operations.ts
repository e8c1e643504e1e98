// OpenAPI `detail` for each route: request body, every status with an example, Basic auth.
import { Type as t, type TSchema } from "@sinclair/typebox";
import type { DocumentDecoration } from "elysia";
import type { Flag } from "../http/envelope.ts";
import { IDEMPOTENCY_CONFLICT, LEAD_RECEIVED, PHONE_BLOCKED, PHONE_CAN_BE_SENT } from "../intake/messages.ts";
import { EXAMPLE_LEAD } from "./examples.ts";
import { envelope, LeadAccepted, LeadRequest, LeadStatusBody, PrePingRequest } from "./schemas.ts";

const json = (schema: TSchema, example: unknown) => ({ content: { "application/json": { schema, example } } });

const fail = (flag: Flag, description: string, ...errors: string[]) => ({
  description,
  ...json(envelope(flag).failure, { [flag]: false, message: errors.map((error) => ({ error })) }),
});

/** The statuses every authenticated /v1 operation can answer with. */
function commonFailures(flag: Flag) {
  return {
    401: { ...fail(flag, "Missing or wrong credentials.", "Unauthorized"), headers: { "WWW-Authenticate": { schema: t.String() } } },
    429: { ...fail(flag, "Over the vendor's rate limit.", "Rate limit exceeded"), headers: { "Retry-After": { schema: t.Integer() } } },
    500: fail(flag, "Unexpected server failure.", "Internal server error"),
    503: fail(flag, "Shutting down or the database is busy; retry later.", "Service temporarily unavailable"),
  };
}

function bodyFailures(flag: Flag, ...validationErrors: string[]) {
  return {
    400: fail(flag, "Validation failed: every error, in field order.", ...validationErrors),
    413: fail(flag, "Body over the size limit.", "Request body exceeds 65536 bytes"),
  };
}

const security = [{ basicAuth: [] }];

// TypeBox emits JSON Schema (as OpenAPI 3.1 takes it); Elysia types `detail` with OpenAPI 3.0's
// schema types, which differ only in details such as exclusiveMaximum. One cast, here.
const operation = (doc: object) => doc as DocumentDecoration;

export const prePingDoc = operation({
  summary: "Check whether a phone number can be sent to postLead",
  tags: ["Leads"],
  security,
  requestBody: { required: true, ...json(PrePingRequest, { phone_number: "(212) 555-0123" }) },
  responses: {
    200: { description: "The number can be sent.", ...json(envelope("can_post_phone_bit").success, { can_post_phone_bit: true, message: PHONE_CAN_BE_SENT }) },
    ...bodyFailures("can_post_phone_bit", "Invalid Characters: 212-555-01x3"),
    422: fail("can_post_phone_bit", "Suppressed, or a lead with this number was accepted within the duplicate window.", PHONE_BLOCKED),
    ...commonFailures("can_post_phone_bit"),
  },
});


export const postLeadDoc = operation({
  summary: "Submit a lead (preliminary acceptance; the final result follows by callback)",
  tags: ["Leads"],
  security,
  parameters: [
    {
      name: "Idempotency-Key",
      in: "header" as const,
      required: false,
      description: "Makes a retry return the first answer (same lead_id) for 24 hours.",
      schema: t.String({ maxLength: 255 }),
    },
  ],
  requestBody: { required: true, ...json(LeadRequest, EXAMPLE_LEAD) },
  responses: {
    200: {
      description: "Preliminarily accepted; stored before this answer was sent.",
      ...json(LeadAccepted, { success_bit: true, message: LEAD_RECEIVED, lead_id: "0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69" }),
    },
    ...bodyFailures("success_bit", "Invalid State Code (2 characters): XX", "Missing Field: email"),
    422: fail("success_bit", `${PHONE_BLOCKED} Also: ${IDEMPOTENCY_CONFLICT}.`, PHONE_BLOCKED),
    ...commonFailures("success_bit"),
  },
});

export const leadLookupDoc = operation({
  summary: "Read a lead's status and final result (your own leads only)",
  tags: ["Leads"],
  security,
  responses: {
    200: {
      description: "The lead's status. A rejected lead answers success_bit false with the reason.",
      ...json(LeadStatusBody, {
        success_bit: true,
        status: "accepted",
        message: "Lead accepted.",
        lead_id: "0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69",
      }),
    },
    404: fail("success_bit", "No lead with this id belongs to you.", "Lead not found"),
    ...commonFailures("success_bit"),
  },
});
