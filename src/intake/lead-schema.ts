// The lead, once: every field of postLead's body (docs/contract.md §4, in the order of docs/interface.md §2.1) with its
// rule, description, example, the contract's text for a value that breaks the rule, and the lead
// column it is stored in. The validator (validate.ts), the ValidLead type, the OpenAPI request
// schemas and example, the tests' valid lead and the fixtures' base lead are all derived from it.
//
// Lives in intake/ (not contract/) because its formats are intake's own checks (phone.ts,
// us-states.ts): docs and replay import it, and it imports neither.
//
// A rule a regular expression states fully is a JSON Schema `pattern` (generated clients and the
// API page check it as the service does); the rest are custom formats registered once below.
// `maxLength` counts characters (code points), as JSON Schema defines it.
import { FormatRegistry, Type as t, type TSchema, type TString } from "@sinclair/typebox";
import { FIELD_TEXTS as TEXTS, type InvalidText } from "../contract/texts.ts";
import { nanpE164, PHONE_CHARACTERS } from "./phone.ts";
import { MAILING_STATE_CODES, STATE_CODES } from "./us-states.ts";

/** An absolute http(s) URL with a host, as WHATWG URL parses it; null for anything else. */
export function parseHttpUrl(value: string): URL | null {
  if (!/^https?:\/\/[^\s/?#]/i.test(value) || /\s/.test(value)) return null;
  const url = URL.parse(value);
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "" ? url : null;
}

export const isHttpUrl = (value: string): boolean => parseHttpUrl(value) !== null;

// toUpperCase() maps "ı" to "I" and "ſ" to "S": the fields' pattern admits ASCII letters only.
const codeIn =
  (codes: ReadonlySet<string>) =>
  (value: string): string | null => {
    const code = value.toUpperCase();
    return codes.has(code) ? code : null;
  };

/**
 * The custom formats, by the name the schema gives them: each is a check (TypeBox's FormatRegistry
 * runs it for the docs' and tests' checks) and the value stored when it passes.
 */
export const FORMATS = {
  /** After the phone's pattern (PHONE_CHARACTERS), which the schema states with it. */
  "us-phone": nanpE164,
  "us-state": codeIn(STATE_CODES),
  "us-mailing-state": codeIn(MAILING_STATE_CODES),
  "http-url": (value: string): string | null => (isHttpUrl(value) ? value : null),
};
export type FormatName = keyof typeof FORMATS;

for (const [name, parse] of Object.entries(FORMATS)) FormatRegistry.Set(name, (value) => parse(value) !== null);

/** The rule keywords a lead field may carry; each has a contract text (validate.ts checks them in this order). */
export const RULE_KEYWORDS = ["maxLength", "pattern", "format"] as const;
export type RuleKeyword = (typeof RULE_KEYWORDS)[number];

export interface LeadField<Key extends string = string, Required extends boolean = boolean> {
  /** The ValidLead property, which is the leads column's name in both databases' schemas. */
  key: Key;
  required: Required;
  /** The rule (maxLength, pattern, format), the description and the example. */
  schema: TString;
  /** The contract's text for each rule keyword the field carries. */
  texts: Partial<Record<RuleKeyword, InvalidText>>;
  /** Checked as sent, surrounding whitespace included (the phone's characters rule); else trimmed. */
  asSent?: boolean;
}

const MAX_TEXT = 255;

/** A field whose only rule is the 255-character limit. */
function text<K extends string>(key: K, description: string, example: string): LeadField<K, true> {
  return { key, required: true, schema: t.String({ maxLength: MAX_TEXT, description, examples: [example] }), texts: { maxLength: TEXTS.tooLong } };
}

/** A field whose rule keywords all answer with one text. */
function ruled<K extends string, R extends boolean>(
  key: K,
  required: R,
  invalid: InvalidText,
  options: { description: string; example: string; maxLength?: number; pattern?: string; format?: FormatName },
): LeadField<K, R> {
  const { example, ...rule } = options;
  const texts = Object.fromEntries(RULE_KEYWORDS.filter((keyword) => rule[keyword] !== undefined).map((keyword) => [keyword, invalid]));
  return { key, required, schema: t.String({ ...rule, examples: [example] }), texts };
}

const codeList = (codes: ReadonlySet<string>) => [...codes].join(", ");

/** postLead's string fields, in the order of docs/interface.md §2.1 (the order errors are listed in). */
export const LEAD_FIELDS = {
  phone_number: {
    key: "phoneE164",
    required: true,
    schema: t.String({
      pattern: PHONE_CHARACTERS.source,
      format: "us-phone",
      description: "Customer phone, a US (NANP) number: digits, space, ( ) - . + only. Stored as E.164 (+1NXXNXXXXXX).",
      examples: ["(212) 555-0123"],
    }),
    texts: { pattern: TEXTS.invalidCharacters, format: TEXTS.invalidPhoneNumber },
    asSent: true,
  } satisfies LeadField<"phoneE164", true>,
  customer_name: text("customerName", "Name of the customer.", "Jane Doe"),
  state: ruled("state", true, TEXTS.invalidState, {
    pattern: "^[A-Za-z]{2}$",
    format: "us-state",
    description: `USPS state or territory code, any case; stored upper-case. One of ${codeList(STATE_CODES)}.`,
    example: "NY",
  }),
  city: text("city", "City of the customer.", "New York"),
  zip: ruled("zip", true, TEXTS.invalidZip, { pattern: "^[0-9]{5}(-[0-9]{4})?$", description: "ZIP code: 12345 or 12345-6789.", example: "10001" }),
  street: text("street", "Street address. `customer_address` is accepted as another name for it; when both are sent, `street` is used.", "1 Main St"),
  certificate_url: ruled("certificateUrl", false, TEXTS.invalidCertificateUrl, {
    maxLength: 500,
    format: "http-url",
    description: "An http(s) URL. Either this or extra_data is required.",
    example: "https://cert.example.com/abc",
  }),
  dm_name: text("dmName", "Name of the decision maker.", "Jane Doe"),
  utility: text("utility", "Utility provider of the customer.", "ConEd"),
  call_back_url: ruled("callBackUrl", false, TEXTS.invalidCallbackUrl, {
    maxLength: 2048,
    format: "http-url",
    description: "An http(s) URL that receives the final result (see Callbacks); not localhost or a private address. Optional.",
    example: "https://vendor.example.com/callback",
  }),
  mailing_street: text("mailingStreet", "Mailing street address.", "1 Main St"),
  mailing_city: text("mailingCity", "Mailing city.", "New York"),
  mailing_zip: ruled("mailingZip", true, TEXTS.invalidMailingZip, {
    pattern: "^[0-9]{5}(-[0-9]{4})?$",
    description: "Mailing ZIP code: 12345 or 12345-6789.",
    example: "10001",
  }),
  mailing_state: ruled("mailingState", true, TEXTS.invalidMailingState, {
    pattern: "^[A-Za-z]{2}$",
    format: "us-mailing-state",
    description: `USPS state, territory or military code, any case; stored upper-case. One of ${codeList(MAILING_STATE_CODES)}.`,
    example: "NY",
  }),
  vendor_campaign_name: text("vendorCampaignName", "Campaign the submission belongs to.", "spring-2026"),
  email: ruled("email", true, TEXTS.invalidEmail, {
    maxLength: 254,
    pattern:
      "^(?!\\.)(?!.*\\.\\.)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}(?<!\\.)@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$",
    description: "Email address of the customer.",
    example: "jane@example.com",
  }),
};

export type LeadFieldName = keyof typeof LEAD_FIELDS;
type Fields = typeof LEAD_FIELDS;

/** A lead as validated and stored: the fields' values by their keys (trimmed, normalised), extra_data as JSON text. */
export type ValidLead = { -readonly [N in LeadFieldName as Fields[N]["key"]]: Fields[N]["required"] extends true ? string : string | null } & {
  /** extra_data as JSON text, or null when not sent. */
  extraData: string | null;
};

const objectOrObjects = t.Union([t.Record(t.String(), t.Unknown()), t.Array(t.Record(t.String(), t.Unknown()))]);

/** extra_data: not a string field, so outside LEAD_FIELDS; its rules are validate.ts's takeExtraData. */
export const EXTRA_DATA = t.Optional(
  t.Union(objectOrObjects.anyOf, {
    description: "An object or an array of objects. Required when certificate_url is not sent.",
    examples: [{ source: "web" }],
  }),
);

/** The valid lead of the API page's example (and the base of the tests' and fixtures' leads): each field's example. */
export const EXAMPLE_LEAD = Object.fromEntries(Object.entries(LEAD_FIELDS).map(([name, field]) => [name, field.schema.examples[0]])) as Record<
  LeadFieldName,
  string
>;

const property = (field: LeadField): TSchema => (field.required ? field.schema : t.Optional(field.schema));

/** postLead's body as JSON Schema. */
export const LeadRequest = t.Object(
  { ...Object.fromEntries(Object.entries(LEAD_FIELDS).map(([name, field]) => [name, property(field)])), extra_data: EXTRA_DATA },
  {
    additionalProperties: true,
    description: "String values are trimmed before these rules apply. Unknown fields are accepted, ignored and kept with the stored request.",
  },
);

/** prePing's body: postLead's phone_number, and its vendor_campaign_name, optional here (the policy's campaign scopes). */
export const PrePingRequest = t.Object({
  phone_number: LEAD_FIELDS.phone_number.schema,
  vendor_campaign_name: t.Optional(LEAD_FIELDS.vendor_campaign_name.schema),
});
