// TypeBox (JSON Schema) descriptions of the API's bodies, for the OpenAPI 3.1 document, whose
// schemas are JSON Schema. Validation itself is in src/intake/validate.ts, because the contract
// fixes error texts and their order. Named schemas live in components.schemas and are referenced.
import { Type as t, type TSchema } from "@sinclair/typebox";

const text = (description: string, example: string) => t.String({ description, examples: [example] });

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
  | "CallbackRejected"
  | "Health";

/** A reference to one of SCHEMAS, as operations and other schemas use it. */
export const ref = (name: SchemaName) => t.Ref(`#/components/schemas/${name}`);

const LeadRequest = t.Object(
  {
    phone_number: text("Customer phone, a US (NANP) number. Digits, space, ( ) - . + only.", "(212) 555-0123"),
    customer_name: text("Name of the customer (max 255 characters).", "Jane Doe"),
    state: text("USPS state or territory code, any case.", "NY"),
    city: text("City of the customer.", "New York"),
    zip: text("ZIP code: 12345 or 12345-6789.", "10001"),
    street: text("Street address. `customer_address` is accepted as another name for it.", "1 Main St"),
    certificate_url: t.Optional(text("http(s) URL, at most 500 characters. Either this or extra_data is required.", "https://cert.example.com/abc")),
    dm_name: text("Name of the decision maker.", "Jane Doe"),
    utility: text("Utility provider of the customer.", "ConEd"),
    call_back_url: t.Optional(text("http(s) URL (max 2,048) that receives the final result (see Callbacks). Optional.", "https://vendor.example.com/callback")),
    mailing_street: text("Mailing street address.", "1 Main St"),
    mailing_city: text("Mailing city.", "New York"),
    mailing_zip: text("Mailing ZIP code.", "10001"),
    mailing_state: text("USPS state, territory or military (AA, AE, AP) code.", "NY"),
    vendor_campaign_name: text("Campaign the submission belongs to.", "spring-2026"),
    email: text("Email address of the customer.", "jane@example.com"),
    extra_data: t.Optional(
      t.Union([t.Record(t.String(), t.Unknown()), t.Array(t.Record(t.String(), t.Unknown()))], {
        description: "An object or an array of objects. Required when certificate_url is not sent.",
      }),
    ),
  },
  { additionalProperties: true, description: "Unknown fields are accepted, ignored and kept with the stored request." },
);

const PrePingRequest = t.Object({ phone_number: text("Phone number to check, as postLead would get it.", "(212) 555-0123") });

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
};

const CallbackAccepted = t.Object(
  { ...callbackCommon, success_bit: t.Literal(true), status: t.Literal("accepted"), message: t.Literal("Lead accepted.") },
  { description: "The final result of an accepted lead." },
);

const CallbackRejected = t.Object(
  { ...callbackCommon, success_bit: t.Literal(false), status: t.Literal("rejected"), message: ref("ErrorList") },
  { description: "The final result of a rejected lead; the reason is in message." },
);

const Health = t.Object({ status: t.String() });

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
  Health,
};
