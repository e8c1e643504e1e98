// OpenAPI `detail` for each route: request body, every status with an example, Basic auth, and the
// callback. Examples use the service's own texts so the page cannot drift from what it answers.
import type { DocumentDecoration } from "elysia";
import { ACCEPTED_MESSAGE } from "../callbacks/payload.ts";
import { REASON_SUPPRESSED } from "../final-results/decide.ts";
import { BODY_NOT_AN_OBJECT, BODY_NOT_UTF8, bodyTooLarge, MALFORMED_JSON } from "../http/body.ts";
import type { Flag } from "../http/envelope.ts";
import { TOO_MANY_FAILURES } from "../auth/vendor-auth.ts";
import { IDEMPOTENCY_CONFLICT, LEAD_RECEIVED, PHONE_BLOCKED, PHONE_CAN_BE_SENT } from "../intake/messages.ts";
import { finalResultCallback } from "./callback.ts";
import { EXAMPLE_LEAD, EXAMPLE_LEAD_ID as LEAD_ID } from "./examples.ts";
import { ref, type SchemaName } from "./schemas.ts";

const DEFAULT_BODY_LIMIT = 65_536;

type Examples = Record<string, { summary: string; value: unknown }>;

const json = (schema: object, example: unknown) => ({ content: { "application/json": { schema, example } } });
const jsonExamples = (schema: object, examples: Examples) => ({ content: { "application/json": { schema, examples } } });

const envelopeSchema = (flag: Flag) => ref(flag === "can_post_phone_bit" ? "PrePingFailure" : "Failure");
const errors = (flag: Flag, texts: string[]) => ({ [flag]: false, message: texts.map((error) => ({ error })) });

/** A failed answer: one example, or several named ones as [summary, ...error texts]. */
function fail(flag: Flag, description: string, cases: string[] | Record<string, [string, ...string[]]>, headers?: object) {
  const content = Array.isArray(cases)
    ? json(envelopeSchema(flag), errors(flag, cases))
    : jsonExamples(
        envelopeSchema(flag),
        Object.fromEntries(Object.entries(cases).map(([name, [summary, ...texts]]) => [name, { summary, value: errors(flag, texts) }])),
      );
  return { description, ...(headers ? { headers } : {}), ...content };
}

const header = (description: string, schema: object, example: unknown) => ({ description, schema, example });
const wwwAuthenticate = { "WWW-Authenticate": header("The Basic challenge.", { type: "string" }, 'Basic realm="lead-ingress", charset="UTF-8"') };
const retryAfter = { "Retry-After": header("Seconds to wait before trying again.", { type: "integer", minimum: 0 }, 1) };
const allow = (methods: string) => ({ Allow: header("The methods this path answers.", { type: "string" }, methods) });

/** Another method on a path that exists: 405 with Allow (on /v1 only after authentication). */
const methodNotAllowed = (flag: Flag, methods: string) =>
  fail(flag, `Any method other than ${methods} on this path.`, ["Method Not Allowed"], allow(methods));

const shuttingDown: [string, string] = ["The service is shutting down", "Service is shutting down"];

/** The statuses every authenticated /v1 operation can answer with. */
function v1Failures(flag: Flag, methods: string) {
  return {
    401: fail(flag, "Missing, malformed or wrong credentials; the answer does not say which.", ["Unauthorized"], wwwAuthenticate),
    405: methodNotAllowed(flag, methods),
    429: fail(flag, "Over your rate limit, or too many failed credentials from your address or for your name.", { rateLimit: ["Over your rate limit", "Rate limit exceeded"], failedCredentials: ["Too many failed credentials", TOO_MANY_FAILURES] }, retryAfter),
    500: fail(flag, "Unexpected server failure; nothing was stored.", ["Internal server error"]),
    503: fail(flag, "The database is busy, its disk is full or failing, or the service is shutting down; retry later.", { busy: ["The database is busy or its disk is full", "Service temporarily unavailable"], shuttingDown }, retryAfter),
  };
}

function bodyFailures(flag: Flag, validation: Record<string, [string, ...string[]]>) {
  return {
    400: fail(flag, "The body is not a JSON object, or fields are invalid: every error, in field order.", {
      ...validation,
      notUtf8: ["The body's bytes are not valid UTF-8", BODY_NOT_UTF8],
      malformedJson: ["The body is not JSON", MALFORMED_JSON],
      notAnObject: ["The body is JSON but not an object", BODY_NOT_AN_OBJECT],
    }),
    413: fail(flag, `Body over the size limit (configurable; ${DEFAULT_BODY_LIMIT} bytes by default).`, [bodyTooLarge(DEFAULT_BODY_LIMIT)]),
  };
}

const security = [{ basicAuth: [] }];
const noAuth: never[] = [];

// TypeBox emits JSON Schema, as OpenAPI 3.1 takes it; Elysia types `detail` with OpenAPI 3.0's
// types, which differ only in details such as `const` and `examples`. One cast, here.
const operation = (doc: object) => doc as DocumentDecoration;

export const prePingDoc = operation({
  operationId: "prePing",
  summary: "Check whether a phone number can be sent to postLead",
  description: "Runs postLead's phone checks (format, suppression list, duplicate window) without storing anything. A 200 means an immediate postLead with this number will not get a 422.",
  tags: ["Leads"],
  security,
  requestBody: { required: true, ...json(ref("PrePingRequest"), { phone_number: EXAMPLE_LEAD.phone_number }) },
  responses: {
    200: { description: "The number can be sent.", ...json(ref("PrePingSuccess"), { can_post_phone_bit: true, message: PHONE_CAN_BE_SENT }) },
    ...bodyFailures("can_post_phone_bit", {
      invalidCharacters: ["A character that is not a digit, space, ( ) - . +", "Invalid Characters: 212-555-01x3"],
      invalidNumber: ["Not a valid US number", "Invalid Phone Number: 555-0123"],
      missing: ["phone_number missing, null or blank", "Missing Field: phone_number"],
    }),
    422: fail("can_post_phone_bit", "Suppressed, or a lead with this number was accepted within the duplicate window.", [PHONE_BLOCKED]),
    ...v1Failures("can_post_phone_bit", "POST"),
  },
});

export const postLeadDoc = operation({
  operationId: "postLead",
  summary: "Submit a lead (preliminary acceptance; the final result follows)",
  description:
    "A 200 is a preliminary acceptance, sent only after the lead is stored. The final result (accepted or rejected) follows after the hold period: POSTed to `call_back_url` when given (see Callbacks), and always readable with GET /v1/leads/{lead_id}.",
  tags: ["Leads"],
  security,
  parameters: [
    {
      name: "Idempotency-Key",
      in: "header",
      required: false,
      // The example is text, not `example`: Swagger UI's Try it out fills the field with that, so
      // every try from the page would send one key, and the next replay the first or get a 422.
      description:
        "A key you choose, one per lead, for example `order-4711`. A retry with it returns the first answer (same lead_id, no second lead) for 24 hours. The same key with another body is a 422.",
      schema: { type: "string", maxLength: 255 },
    },
  ],
  requestBody: { required: true, ...json(ref("LeadRequest"), EXAMPLE_LEAD) },
  responses: {
    200: {
      description: "Preliminarily accepted; stored before this answer was sent.",
      headers: { "Idempotent-Replayed": header("`true` when this is the stored answer to an earlier request with the same Idempotency-Key.", { type: "string", enum: ["true"] }, "true") },
      ...json(ref("LeadAccepted"), { success_bit: true, message: LEAD_RECEIVED, lead_id: LEAD_ID }),
    },
    ...bodyFailures("success_bit", {
      invalidFields: ["Every invalid field, in field order", "Invalid State Code (2 characters): XX", "Missing Field: email"],
      missingCertificate: ["Neither certificate_url nor extra_data", "Missing Field: extra_data (required when certificate_url is not provided)"],
    }),
    422: fail("success_bit", "The phone number cannot be sent now, or the Idempotency-Key was used with another body.", {
      phoneBlocked: ["Suppressed, or accepted within the duplicate window", PHONE_BLOCKED],
      idempotencyConflict: ["Idempotency-Key reused with a different body", IDEMPOTENCY_CONFLICT],
    }),
    ...v1Failures("success_bit", "POST"),
  },
  callbacks: { finalResult: finalResultCallback },
});

const leadStatus = (summary: string, value: object) => ({ summary, value: { lead_id: LEAD_ID, ...value } });

export const leadLookupDoc = operation({
  operationId: "getLead",
  summary: "Read a lead's status and final result (your own leads only)",
  tags: ["Leads"],
  security,
  parameters: [{ name: "lead_id", in: "path", required: true, description: "The lead_id from postLead's answer.", schema: { type: "string" }, example: LEAD_ID }],
  responses: {
    200: {
      description: "The lead's status. A rejected lead answers success_bit false with the reason.",
      ...jsonExamples(ref("LeadStatus"), {
        pending: leadStatus("Pending (within the hold period)", { success_bit: true, status: "pending", message: "Lead is pending; the final result is not decided yet." }),
        accepted: leadStatus("Accepted", { success_bit: true, status: "accepted", message: ACCEPTED_MESSAGE }),
        rejected: leadStatus("Rejected", { success_bit: false, status: "rejected", message: [{ error: REASON_SUPPRESSED }] }),
      }),
    },
    404: fail("success_bit", "No lead with this id belongs to you.", ["Lead not found"]),
    ...v1Failures("success_bit", "GET"),
  },
});

const plain = (schema: SchemaName, example: unknown) => json(ref(schema), example);
const shutdown503 = fail("success_bit", "The service is shutting down.", [shuttingDown[1]], retryAfter);

/**
 * The rest of the documentation of routes whose own files give only a summary (health, metrics),
 * merged over their `detail` by the document builder: keyed by method and route path.
 */
export const OPERATION_DOCS: Record<string, object> = {
  "GET /healthz": {
    operationId: "healthz",
    description: "For liveness probes. No authentication.",
    security: noAuth,
    responses: {
      200: { description: "The process is alive.", ...plain("Health", { status: "ok" }) },
      405: methodNotAllowed("success_bit", "GET"),
      503: shutdown503,
    },
  },
  "GET /readyz": {
    operationId: "readyz",
    description: "For readiness probes: the database is open and its migrations applied. No authentication.",
    security: noAuth,
    responses: {
      200: { description: "Ready to take requests.", ...plain("Health", { status: "ready" }) },
      405: methodNotAllowed("success_bit", "GET"),
      503: {
        description: "Not ready (database unavailable), or shutting down.",
        ...jsonExamples(
          { oneOf: [ref("Health"), ref("Failure")] },
          {
            notReady: { summary: "The database is not ready", value: { status: "not ready" } },
            shuttingDown: { summary: shuttingDown[0], value: errors("success_bit", [shuttingDown[1]]) },
          },
        ),
      },
    },
  },
  "GET /metrics": {
    operationId: "metrics",
    description: "Counters and gauges in the Prometheus text format. No authentication: keep it off the public interface.",
    security: noAuth,
    responses: {
      200: {
        description: "Prometheus text exposition format 0.0.4.",
        content: {
          "text/plain": {
            schema: { type: "string" },
            example: '# HELP lead_ingress_http_requests_total HTTP requests by route and status.\n# TYPE lead_ingress_http_requests_total counter\nlead_ingress_http_requests_total{route="/v1/prePing",status="200"} 3\n',
          },
        },
      },
      405: methodNotAllowed("success_bit", "GET"),
      503: shutdown503,
    },
  },
};
