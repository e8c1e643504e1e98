// Field validation for postLead and prePing (docs/contract.md §4), derived from the lead's schema
// (lead-schema.ts): every failed rule is reported, one error per field, in the schema's field order.
//
// The schema's rules are compiled once into plain checks rather than run through TypeBox's
// TypeCompiler: the contract wants one text per field (the compiled checker stops at the first
// failure, or collects errors that must then be mapped back to fields), `maxLength` counted in
// characters (TypeBox counts UTF-16 units), and blank values read as missing. It costs about what
// the hand-written validator it replaced did (bench/README.md, "Behind the code").
import { literalHostRefusal } from "../callbacks/ssrf.ts";
import { FIELD_TEXTS as TEXTS, type InvalidText } from "../contract/texts.ts";
import { FORMATS, LEAD_FIELDS, parseHttpUrl, RULE_KEYWORDS, type LeadField, type ValidLead } from "./lead-schema.ts";
import type { ValidPing } from "./policy-port.ts";

/**
 * Two submissions are the same lead when their validated fields are: values trimmed, state codes
 * upper-cased, the phone in E.164, `customer_address` read as `street`, extra_data compared as a
 * JSON value (object keys in any order, arrays in order). Unknown top-level fields and the body's
 * spelling (key order, whitespace) do not count. `stored` may carry more fields than a ValidLead.
 * The comparison goes no deeper than the new lead's extra_data, which the body's nesting limit
 * bounds (http/json-nesting.ts), however deep a lead stored before that limit is.
 */
export function isSameLead(lead: ValidLead, stored: ValidLead): boolean {
  return (Object.keys(lead) as (keyof ValidLead)[]).every((field) =>
    field === "extraData" ? Bun.deepEquals(parseJson(lead.extraData), parseJson(stored.extraData)) : lead[field] === stored[field],
  );
}

const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: string[] };

type Body = Record<string, unknown>;

/** Code points, not UTF-16 units: "255 characters" as a person (and JSON Schema) counts them. */
function fitsIn(value: string, max: number): boolean {
  // A string has at most as many code points as UTF-16 units: most values need no counting.
  if (value.length <= max) return true;
  let n = 0;
  for (const _ of value) if (++n > max) return false;
  return true;
}

interface Rule {
  test: (value: string) => boolean;
  text: InvalidText;
}

/** One field's schema as plain checks: its rules in RULE_KEYWORDS order, then its format, which gives the stored value. */
interface CompiledField {
  /** The field's name in the body. */
  name: string;
  key: string;
  required: boolean;
  asSent: boolean;
  rules: Rule[];
  /** The format's parse (null when the value breaks it), with its text. */
  format: { parse: Parse; text: InvalidText } | null;
}

type Parse = (value: string) => string | null;

const DOCUMENTATION_KEYWORDS = new Set(["type", "description", "examples"]);

/** `parse` replaces the format's own where the running configuration narrows it. */
function compileField(name: string, field: LeadField, parse?: Parse): CompiledField {
  const schema = field.schema;
  for (const keyword of Object.keys(schema)) {
    if (!DOCUMENTATION_KEYWORDS.has(keyword) && !(RULE_KEYWORDS as readonly string[]).includes(keyword))
      throw new Error(`${name}: the validator has no rule for ${keyword}`);
  }
  const textOf = (keyword: (typeof RULE_KEYWORDS)[number]) => {
    const text = field.texts[keyword];
    if (!text) throw new Error(`${name}: ${keyword} has no contract text`);
    return text;
  };
  const rules: Rule[] = [];
  if (schema.maxLength !== undefined) {
    const max = schema.maxLength;
    rules.push({ test: (value) => fitsIn(value, max), text: textOf("maxLength") });
  }
  if (schema.pattern !== undefined) {
    const pattern = new RegExp(schema.pattern);
    rules.push({ test: (value) => pattern.test(value), text: textOf("pattern") });
  }
  const format = schema.format === undefined ? null : { parse: parse ?? FORMATS[schema.format as keyof typeof FORMATS], text: textOf("format") };
  if (format !== null && format.parse === undefined) throw new Error(`${name}: unknown format ${schema.format}`);
  return { name, key: field.key, required: field.required, asSent: field.asSent === true, rules, format };
}

/**
 * call_back_url, unless private callbacks are allowed: not localhost or a literal private address
 * (docs/contract.md §4), which delivery would refuse anyway (§8). Names that resolve to such addresses can
 * only be judged, and refused, at delivery.
 */
const publicHttpUrl: Parse = (value) => {
  const url = parseHttpUrl(value);
  return url !== null && literalHostRefusal(url.hostname) === null ? value : null;
};

function compileLead(allowPrivateCallbacks: boolean): CompiledField[] {
  return Object.entries(LEAD_FIELDS).map(([name, field]) =>
    compileField(name, field, name === "call_back_url" && !allowPrivateCallbacks ? publicHttpUrl : undefined),
  );
}

type LeadValidator = (body: Body, errors: string[]) => ValidLead | undefined;

/**
 * The loop over the fields unrolled into one function, as TypeBox's TypeCompiler does: each field
 * read by a constant name and the lead built as one object literal. The loop itself, reading and
 * storing by computed names, was slower than the hand-written validator this replaced.
 */
function unrolled(fields: CompiledField[]): LeadValidator {
  const param = (i: number) => `field${i}`;
  const takes = fields.map((field, i) => {
    const name = JSON.stringify(field.name);
    return field.name === "street"
      ? `const street = streetName(body), v${i} = take(errors, body[street], street, ${param(i)});`
      : `const v${i} = take(errors, body[${name}], ${name}, ${param(i)});`;
  });
  const lead = fields.map((field, i) => `${JSON.stringify(field.key)}: v${i}`).join(", ");
  const source = `return (body, errors) => {\n${takes.join("\n")}\nconst extraData = takeExtraData(errors, body);\nreturn errors.length > 0 ? undefined : { ${lead}, extraData };\n};`;
  return new Function("take", "takeExtraData", "streetName", ...fields.map((_, i) => param(i)), source)(take, takeExtraData, streetName, ...fields);
}

const LEAD_VALIDATORS = { allowingPrivate: unrolled(compileLead(true)), publicOnly: unrolled(compileLead(false)) };
const PHONE = compileField("phone_number", LEAD_FIELDS.phone_number);
/** Optional at prePing (docs/contract.md §10), with postLead's rules and texts. */
const PING_CAMPAIGN: CompiledField = { ...compileField("vendor_campaign_name", LEAD_FIELDS.vendor_campaign_name), required: false };

/** Is the field absent: missing, null, or blank after trimming? */
function isAbsent(body: Body, name: string): boolean {
  const value = body[name];
  return value === undefined || value === null || (typeof value === "string" && value.trim() === "");
}

/**
 * One string field: its stored value, null when an optional field is absent, or undefined after
 * recording the field's one error.
 */
function take(errors: string[], value: unknown, name: string, field: CompiledField): string | null | undefined {
  if (value === undefined || value === null) return absent(errors, name, field);
  if (typeof value !== "string") return fail(errors, TEXTS.wrongType(name));
  const trimmed = value.trim();
  if (trimmed === "") return absent(errors, name, field);
  const checked = field.asSent ? value : trimmed;
  // The field's own rule first: its contract text wins (a phone number's is `Invalid Characters`).
  for (const rule of field.rules) if (!rule.test(checked)) return fail(errors, rule.text(value, name));
  let stored = trimmed;
  if (field.format !== null) {
    const parsed = field.format.parse(checked);
    if (parsed === null) return fail(errors, field.format.text(value, name));
    stored = parsed;
  }
  // U+0000 (JSON's "\u0000"): PostgreSQL's text cannot store it, so both databases refuse it alike.
  return value.includes("\0") ? fail(errors, TEXTS.nul(name)) : stored;
}

function absent(errors: string[], name: string, field: CompiledField): null | undefined {
  return field.required ? fail(errors, TEXTS.missing(name)) : null;
}

function fail(errors: string[], text: string): undefined {
  errors.push(text);
  return undefined;
}

const isPlainObject = (value: unknown): value is object => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * extra_data: an object or an array of objects; required when certificate_url was not sent.
 * JSON.stringify recurses: the body's nesting limit, checked before the parse, keeps it shallow.
 */
function takeExtraData(errors: string[], body: Body): string | null | undefined {
  const value = body.extra_data;
  if (value === undefined || value === null) return isAbsent(body, "certificate_url") ? fail(errors, TEXTS.missingExtraData) : null;
  const shapeOk = isPlainObject(value) || (Array.isArray(value) && value.every(isPlainObject));
  return shapeOk ? JSON.stringify(value) : fail(errors, TEXTS.invalidExtraData);
}

/** `street` and `customer_address` name one field; `street` wins when both are sent. */
function streetName(body: Body): string {
  return isAbsent(body, "street") && !isAbsent(body, "customer_address") ? "customer_address" : "street";
}

export interface LeadRules {
  /** config.allowPrivateCallbacks: development and tests call back to 127.0.0.1. */
  allowPrivateCallbacks: boolean;
}

export function validateLead(body: Body, rules: LeadRules): Validation<ValidLead> {
  const errors: string[] = [];
  const lead = (rules.allowPrivateCallbacks ? LEAD_VALIDATORS.allowingPrivate : LEAD_VALIDATORS.publicOnly)(body, errors);
  return lead === undefined ? { ok: false, errors } : { ok: true, value: lead };
}

/** prePing validates phone_number and an optional vendor_campaign_name, with postLead's texts. */
export function validatePrePing(body: Body): Validation<ValidPing> {
  const errors: string[] = [];
  const phoneE164 = take(errors, body.phone_number, "phone_number", PHONE);
  const vendorCampaignName = take(errors, body.vendor_campaign_name, "vendor_campaign_name", PING_CAMPAIGN);
  return phoneE164 == null || vendorCampaignName === undefined ? { ok: false, errors } : { ok: true, value: { phoneE164, vendorCampaignName } };
}
