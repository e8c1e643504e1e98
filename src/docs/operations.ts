// The OpenAPI operation of each route, keyed by method and path: request body, every status with an
// example, Basic auth, and the callback. Examples are the service's own texts (contract/texts.ts)
// and the running configuration's limits, so the page cannot drift from what the service answers.
import * as TEXT from "../contract/texts.ts";
import type { DocumentDecoration } from "elysia";
import type { Flag } from "../http/envelope.ts";
import { MAX_BODY_NESTING } from "../http/json-nesting.ts";
import { EXAMPLE_LEAD } from "../intake/lead-schema.ts";
import { finalResultCallback } from "./callback.ts";
import { EXAMPLE_POLICY_REASONS as POLICY, EXAMPLE_LEAD_ID as LEAD_ID } from "./examples.ts";
import { ANSWER_HEADERS, ref } from "./schemas.ts";

/** What of the running configuration the documented answers show. */
export interface DocumentedSettings {
  /** config.bodyLimitBytes: the 413's text names it. */
  bodyLimitBytes: number;
}

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
/** On a 422 only when a cap of the operator's policy is full (docs/contract.md §10). */
const capRetryAfter = {
  "Retry-After": header(
    "Only when a cap of the operator's policy is full: seconds until its window ends (the latest, when several are full).",
    { type: "integer", minimum: 1 },
    3600,
  ),
};
const allow = (methods: string) => ({ Allow: header("The methods this path answers.", { type: "string" }, methods) });

/** Another method on a path that exists: 405 with Allow (on /v1 only after authentication). */
const methodNotAllowed = (flag: Flag, methods: string) =>
  fail(flag, `Any method other than ${methods} on this path.`, [TEXT.METHOD_NOT_ALLOWED], allow(methods));

const shuttingDown: [string, string] = ["The service is shutting down", TEXT.SHUTTING_DOWN];

/** The statuses every authenticated /v1 operation can answer with. */
function v1Failures(flag: Flag, methods: string) {
  return {
    401: fail(flag, "Missing, malformed or wrong credentials; the answer does not say which.", [TEXT.UNAUTHORIZED], wwwAuthenticate),
    405: methodNotAllowed(flag, methods),
    429: fail(
      flag,
      "Over your rate limit, or too many failed credentials from your address or for your name.",
      { rateLimit: ["Over your rate limit", TEXT.RATE_LIMIT_EXCEEDED], failedCredentials: ["Too many failed credentials", TEXT.TOO_MANY_FAILURES] },
      retryAfter,
    ),
    500: fail(flag, "Unexpected server failure; nothing was stored.", [TEXT.INTERNAL_ERROR]),
    503: fail(
      flag,
      "The database is busy, its disk is full or failing, or the service is shutting down; retry later.",
      { busy: ["The database is busy or its disk is full", TEXT.TEMPORARILY_UNAVAILABLE], shuttingDown },
      retryAfter,
    ),
  };
}

function bodyFailures(settings: DocumentedSettings, flag: Flag, validation: Record<string, [string, ...string[]]>) {
  return {
    400: fail(
      flag,
      `The body is not a JSON object, nests objects and arrays deeper than ${MAX_BODY_NESTING} levels, or fields are invalid: every error, in field order.`,
      {
        ...validation,
        notUtf8: ["The body's bytes are not valid UTF-8", TEXT.BODY_NOT_UTF8],
        tooDeep: [
          `More than ${MAX_BODY_NESTING} levels of objects and arrays open at once (the body's own object is the first)`,
          TEXT.bodyTooDeep(MAX_BODY_NESTING),
        ],
        malformedJson: ["The body is not JSON", TEXT.MALFORMED_JSON],
        notAnObject: ["The body is JSON but not an object", TEXT.BODY_NOT_AN_OBJECT],
      },
    ),
    413: fail(flag, `Body over the size limit of this service, ${settings.bodyLimitBytes} bytes.`, [TEXT.bodyTooLarge(settings.bodyLimitBytes)]),
  };
}

const security = [{ basicAuth: [] }];

/** Test mode's header (docs/contract.md §12), on the real routes; the /v1/test/ routes are tests without it. */
const testLeadHeader = {
  name: "X-Test-Lead",
  in: "header",
  required: false,
  description:
    '`true`: a test. It gets the real answer (every check runs) but claims no phone number and takes no cap slot; a stored test lead is decided after a short hold and its callback carries `"test": true`. Any other value, or none: a real request.',
  schema: { type: "string", enum: ["true"] },
};

/** The 200's header that says a request was taken as a test. */
const testAnswerHeader = {
  "X-Test-Lead": header("`true` when the request was a test (X-Test-Lead or a /v1/test/ route).", { type: "string", enum: ["true"] }, "true"),
};

const prePingDoc = (settings: DocumentedSettings) => ({
  operationId: "prePing",
  summary: "Check whether a phone number can be sent to postLead",
  description:
    "Runs postLead's phone checks (format, suppression list, duplicate window), then the operator's policy as far as it can judge from the number, the vendor, `vendor_campaign_name` and the time (a closed schedule, a rule on those fields, a full leads cap), storing nothing but a slot of each pings cap in scope. A 200 means an immediate postLead with this number will not get a 422 for those reasons.",
  tags: ["Leads"],
  security,
  parameters: [testLeadHeader],
  requestBody: { required: true, ...json(ref("PrePingRequest"), { phone_number: EXAMPLE_LEAD.phone_number }) },
  responses: {
    200: {
      description: "The number can be sent.",
      headers: testAnswerHeader,
      ...json(ref("PrePingSuccess"), { can_post_phone_bit: true, message: TEXT.PHONE_CAN_BE_SENT }),
    },
    ...bodyFailures(settings, "can_post_phone_bit", {
      invalidCharacters: ["A character that is not a digit, space, ( ) - . +", TEXT.FIELD_TEXTS.invalidCharacters("212-555-01x3")],
      invalidNumber: ["Not a valid US number", TEXT.FIELD_TEXTS.invalidPhoneNumber("555-0123")],
      missing: ["phone_number missing, null or blank", TEXT.FIELD_TEXTS.missing("phone_number")],
    }),
    422: fail(
      "can_post_phone_bit",
      "Suppressed, or a lead with this number was accepted within the duplicate window; or refused by the operator's policy.",
      {
        phoneBlocked: ["Suppressed, or accepted within the duplicate window", TEXT.PHONE_BLOCKED],
        policySchedule: ["A schedule of the operator's policy is closed (its reason)", POLICY.schedule],
        policyCap: ["A leads or pings cap of the operator's policy is full (its reason; Retry-After)", POLICY.cap],
      },
      capRetryAfter,
    ),
    ...v1Failures("can_post_phone_bit", "POST"),
  },
});

const postLeadDoc = (settings: DocumentedSettings) => ({
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
    testLeadHeader,
  ],
  requestBody: { required: true, ...json(ref("LeadRequest"), EXAMPLE_LEAD) },
  responses: {
    200: {
      description: "Preliminarily accepted; stored before this answer was sent.",
      headers: {
        "Idempotent-Replayed": header(
          "`true` when this is the stored answer to an earlier request with the same Idempotency-Key.",
          { type: "string", enum: ["true"] },
          "true",
        ),
        ...testAnswerHeader,
      },
      ...json(ref("LeadAccepted"), { success_bit: true, message: TEXT.LEAD_RECEIVED, lead_id: LEAD_ID }),
    },
    ...bodyFailures(settings, "success_bit", {
      invalidFields: ["Every invalid field, in field order", TEXT.FIELD_TEXTS.invalidState("XX"), TEXT.FIELD_TEXTS.missing("email")],
      missingCertificate: ["Neither certificate_url nor extra_data", TEXT.FIELD_TEXTS.missingExtraData],
    }),
    422: fail(
      "success_bit",
      "The phone number cannot be sent now, the Idempotency-Key was used with another body, or the operator's policy refuses the lead.",
      {
        phoneBlocked: ["Suppressed, or accepted within the duplicate window", TEXT.PHONE_BLOCKED],
        idempotencyConflict: ["Idempotency-Key reused with a different body", TEXT.IDEMPOTENCY_CONFLICT],
        policyRules: ["Rules of the operator's policy fail: each one's reason, in the policy's order", ...POLICY.rules],
        policySchedule: ["A schedule of the operator's policy is closed (its reason)", POLICY.schedule],
        policyCap: ["A cap of the operator's policy is full: each full cap's reason (Retry-After)", POLICY.cap],
      },
      capRetryAfter,
    ),
    ...v1Failures("success_bit", "POST"),
  },
  callbacks: { finalResult: finalResultCallback },
});

const leadStatus = (summary: string, value: object) => ({ summary, value: { lead_id: LEAD_ID, ...value } });

const leadLookupDoc = {
  operationId: "getLead",
  summary: "Read a lead's status and final result (your own leads only)",
  tags: ["Leads"],
  security,
  responses: {
    200: {
      description: "The lead's status. A rejected lead answers success_bit false with the reason.",
      ...jsonExamples(ref("LeadStatus"), {
        pending: leadStatus("Pending (within the hold period)", { success_bit: true, status: "pending", message: TEXT.LEAD_PENDING }),
        accepted: leadStatus("Accepted", { success_bit: true, status: "accepted", message: TEXT.LEAD_ACCEPTED }),
        rejected: leadStatus("Rejected", { success_bit: false, status: "rejected", message: [{ error: TEXT.REASON_SUPPRESSED }] }),
      }),
    },
    404: fail("success_bit", "No lead with this id belongs to you.", [TEXT.LEAD_NOT_FOUND]),
    ...v1Failures("success_bit", "GET"),
  },
};

type Responses = Record<number, { description: string; headers?: object }>;
type Parameter = { name: string };

/**
 * A route's /v1/test/ twin (docs/contract.md §12): the same request and answers, every request a
 * test, so it needs no X-Test-Lead header.
 */
const testVariant = <D extends { operationId: string; summary: string; description: string; parameters?: Parameter[]; callbacks?: object }>({
  callbacks,
  ...doc
}: D): Omit<D, "callbacks"> => ({
  ...doc,
  operationId: `test${doc.operationId[0]!.toUpperCase()}${doc.operationId.slice(1)}`,
  summary: `Test mode: ${doc.summary[0]!.toLowerCase()}${doc.summary.slice(1)}`,
  description: `The same as its real route, as a test (as with \`X-Test-Lead: true\`): every check runs and the answer is the real one, but nothing a real request is judged by changes: no phone number is claimed, no cap slot is taken. A test lead is stored marked as a test, decided after a short hold, and its callback carries \`"test": true\`${callbacks ? " (the real route documents the callback; an operation id names one operation only)" : ""}.\n\n${doc.description}`,
  tags: ["Test mode"],
  parameters: doc.parameters?.filter((parameter) => parameter !== testLeadHeader),
});

/** Each response with the headers every answer carries. */
const withAnswerHeaders = <D extends { responses: Responses }>(doc: D): D => ({
  ...doc,
  responses: Object.fromEntries(
    Object.entries(doc.responses).map(([status, response]) => [status, { ...response, headers: { ...ANSWER_HEADERS, ...response.headers } }]),
  ),
});

// TypeBox emits JSON Schema, as OpenAPI 3.1 takes it; Elysia types `detail` with OpenAPI 3.0's
// types, which differ only in details such as `const` and `examples`. One cast, here.
const operation = (doc: { responses: Responses }) => withAnswerHeaders(doc) as DocumentDecoration;

/**
 * The /v1 operations, each given to its route as its `detail` by the app that composes them
 * (src/app.ts); the lookup's path parameter is the route's own `params` schema.
 */
export const operationDocs = (settings: DocumentedSettings) => ({
  "POST /v1/prePing": operation(prePingDoc(settings)),
  "POST /v1/postLead": operation(postLeadDoc(settings)),
  "POST /v1/test/prePing": operation(testVariant(prePingDoc(settings))),
  "POST /v1/test/postLead": operation(testVariant(postLeadDoc(settings))),
  "GET /v1/leads/:lead_id": operation(leadLookupDoc),
});
