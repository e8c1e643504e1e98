// TypeBox (JSON Schema) descriptions of the API's bodies, for the OpenAPI document. Validation
// itself is in src/intake/validate.ts, because the contract fixes error texts and their order.
import { Type as t } from "@sinclair/typebox";

const text = (description: string, example: string) => t.String({ description, examples: [example] });

export const LeadRequest = t.Object(
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
    call_back_url: t.Optional(text("http(s) URL (max 2,048) that receives the final result. Optional.", "https://vendor.example.com/callback")),
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

export const PrePingRequest = t.Object({ phone_number: text("Phone number to check.", "(212) 555-0123") });

const errorList = t.Array(t.Object({ error: t.String() }), { minItems: 1 });

export const envelope = (flag: string) => ({
  success: t.Object({ [flag]: t.Literal(true), message: t.String() }, { additionalProperties: true }),
  failure: t.Object({ [flag]: t.Literal(false), message: errorList }),
});

export const LeadAccepted = t.Object({
  success_bit: t.Literal(true),
  message: t.String(),
  lead_id: t.String({ format: "uuid" }),
});

export const LeadStatusBody = t.Object({
  success_bit: t.Boolean({ description: "false only for a rejected lead" }),
  message: t.Union([t.String(), errorList]),
  lead_id: t.String({ format: "uuid" }),
  status: t.Union([t.Literal("pending"), t.Literal("accepted"), t.Literal("rejected")]),
});
