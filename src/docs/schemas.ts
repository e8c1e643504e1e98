// TypeBox (JSON Schema) descriptions of the API's bodies, for the OpenAPI 3.1 document, whose
// schemas are JSON Schema. The request bodies are the lead's schema itself (intake/lead-schema.ts),
// which the validator is derived from. Named schemas live in components.schemas and are referenced.
import { Type as t, type TSchema } from "@sinclair/typebox";
import { LEAD_ACCEPTED } from "../contract/texts.ts";
import { LeadRequest, PrePingRequest } from "../intake/lead-schema.ts";
import { REQUEST_ID_HEADER, REQUEST_ID_RULE } from "../http/request-id.ts";

export type SchemaName =
  | "LeadRequest"
  | "PrePingRequest"
  | "ErrorList"
  | "PrePingSuccess"
  | "PrePingFailure"
  | "Failure"
  | "LeadAccepted"
  | "LeadStatus"
  | "CallbackAccepted"
  | "CallbackRejected";

/** A reference to one of SCHEMAS, as operations and other schemas use it. */
export const ref = (name: SchemaName) => t.Ref(`#/components/schemas/${name}`);

const ErrorList = t.Array(t.Object({ error: t.String() }, { additionalProperties: false }), {
  minItems: 1,
  description: "One entry per problem, never empty.",
});

const PrePingSuccess = t.Object({ can_post_phone_bit: t.Literal(true), message: t.String() });
const PrePingFailure = t.Object({ can_post_phone_bit: t.Literal(false), message: ref("ErrorList") });
const Failure = t.Object({ success_bit: t.Literal(false), message: ref("ErrorList") }, { description: "Every failed answer of postLead and the lead lookup." });

const leadId = t.String({ format: "uuid", description: "The lead's id, from the postLead answer." });

const LeadAccepted = t.Object({ success_bit: t.Literal(true), message: t.String(), lead_id: leadId });

const LeadStatus = t.Object(
  {
    success_bit: t.Boolean({ description: "false only for a rejected lead" }),
    message: t.Union([t.String(), ref("ErrorList")], { description: "A text, or for a rejected lead the reason as an error list." }),
    lead_id: leadId,
    status: t.Union([t.Literal("pending"), t.Literal("accepted"), t.Literal("rejected")]),
  },
  { description: "A lead's status; `pending` until the hold period ends." },
);

const callbackCommon = {
  lead_id: leadId,
  phone_number: t.String({ description: "The lead's phone number in E.164.", examples: ["+12125550123"] }),
  vendor_campaign_name: t.String(),
  decided_at: t.String({ format: "date-time", description: "When the final result was decided." }),
  test: t.Optional(
    t.Literal(true, {
      description: "Present, and true, only on a test lead's callback (X-Test-Lead or a /v1/test/ route); a real lead's callback has no such field.",
    }),
  ),
};

const CallbackAccepted = t.Object(
  { ...callbackCommon, success_bit: t.Literal(true), status: t.Literal("accepted"), message: t.Literal(LEAD_ACCEPTED) },
  { description: "The final result of an accepted lead." },
);

const CallbackRejected = t.Object(
  { ...callbackCommon, success_bit: t.Literal(false), status: t.Literal("rejected"), message: ref("ErrorList") },
  { description: "The final result of a rejected lead; the reason is in message." },
);

export const SCHEMAS: Record<SchemaName, TSchema> = {
  LeadRequest,
  PrePingRequest,
  ErrorList,
  PrePingSuccess,
  PrePingFailure,
  Failure,
  LeadAccepted,
  LeadStatus,
  CallbackAccepted,
  CallbackRejected,
};

/** The headers every answer carries, in components.headers: declared once, referenced by each response. */
export const HEADERS = {
  RequestId: {
    description: `This request's id: the \`${REQUEST_ID_HEADER}\` you sent when it is at most ${REQUEST_ID_RULE.maxLength} letters, digits and \`._:+=/-\`, else one the service made. Quote it when asking about a request: the service's log line for it carries it.`,
    schema: { type: "string" as const, ...REQUEST_ID_RULE },
    example: "AZqKTEn7dqqDghIXFbB8hQ",
  },
};

/** The header every answer carries, as its responses refer to it. */
export const ANSWER_HEADERS = { [REQUEST_ID_HEADER]: { $ref: "#/components/headers/RequestId" } };
