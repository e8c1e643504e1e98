// Field validation for postLead and prePing (CONTRACT §4). Pure functions over the parsed JSON body:
// every failed rule is reported, one error per field, in the order of INTERFACE.md's field table.
import { literalHostRefusal } from "../callbacks/ssrf.ts";
import { checkPhoneNumber } from "./phone.ts";
import { MAILING_STATE_CODES, STATE_CODES } from "./us-states.ts";

export interface ValidLead {
  phoneE164: string;
  customerName: string;
  state: string;
  city: string;
  zip: string;
  street: string;
  certificateUrl: string | null;
  dmName: string;
  utility: string;
  callBackUrl: string | null;
  mailingStreet: string;
  mailingCity: string;
  mailingZip: string;
  mailingState: string;
  vendorCampaignName: string;
  email: string;
  /** extra_data as JSON text, or null when not sent. */
  extraData: string | null;
}

/**
 * Two submissions are the same lead when their validated fields are: values trimmed, state codes
 * upper-cased, the phone in E.164, `customer_address` read as `street`, extra_data compared as a
 * JSON value (object keys in any order, arrays in order). Unknown top-level fields and the body's
 * spelling (key order, whitespace) do not count. `stored` may carry more fields than a ValidLead.
 */
export function isSameLead(lead: ValidLead, stored: ValidLead): boolean {
  return (Object.keys(lead) as (keyof ValidLead)[]).every((field) =>
    field === "extraData" ? Bun.deepEquals(parseJson(lead.extraData), parseJson(stored.extraData)) : lead[field] === stored[field],
  );
}

const parseJson = (text: string | null): unknown => (text === null ? null : JSON.parse(text));

export type Validation<T> = { ok: true; value: T } | { ok: false; errors: string[] };

type Body = Record<string, unknown>;

const MAX_TEXT = 255;
const MAX_CERTIFICATE_URL = 500;
const MAX_CALLBACK_URL = 2048;
const MAX_EMAIL = 254;
const ECHO_LIMIT = 600;

/** A value as it appears in an error text: verbatim, cut to 600 characters with "…". */
export function echo(value: string): string {
  if (value.length <= ECHO_LIMIT) return value;
  const chars = Array.from(value);
  return chars.length <= ECHO_LIMIT ? value : `${chars.slice(0, ECHO_LIMIT).join("")}…`;
}

/** Code points, not UTF-16 units: "255 characters" as a person counts them. */
function fitsIn(value: string, max: number): boolean {
  // A string has at most as many code points as UTF-16 units: most values need no counting.
  if (value.length <= max) return true;
  let n = 0;
  for (const _ of value) if (++n > max) return false;
  return true;
}

/** Reads one string field: absent (missing, null or blank), of the wrong type, or its text. */
type Read = { kind: "absent" } | { kind: "wrongType" } | { kind: "text"; raw: string; trimmed: string };

function read(body: Body, field: string): Read {
  const value = body[field];
  if (value === undefined || value === null) return { kind: "absent" };
  if (typeof value !== "string") return { kind: "wrongType" };
  const trimmed = value.trim();
  return trimmed === "" ? { kind: "absent" } : { kind: "text", raw: value, trimmed };
}

/**
 * Collects errors for one request. Each `take*` call checks one field and returns its normalised
 * value, or undefined after recording the field's error.
 */
class FieldErrors {
  readonly errors: string[] = [];

  fail(text: string): undefined {
    this.errors.push(text);
    return undefined;
  }

  /** A required string field; `check` returns an error text for a bad value, or null. */
  required(body: Body, field: string, check: Check = tooLong): string | undefined {
    const r = read(body, field);
    if (r.kind === "absent") return this.fail(`Missing Field: ${field}`);
    return this.present(r, field, check);
  }

  /** An optional string field: null when absent. */
  optional(body: Body, field: string, check: Check): string | null | undefined {
    const r = read(body, field);
    return r.kind === "absent" ? null : this.present(r, field, check);
  }

  private present(r: Exclude<Read, { kind: "absent" }>, field: string, check: Check) {
    if (r.kind === "wrongType") return this.fail(`Invalid Type (expected string): ${field}`);
    // The field's own rule first: its contract text wins (a phone number's is `Invalid Characters`).
    const error = check(r.trimmed, r.raw, field) ?? hasNul(r.raw, field);
    return error === null ? r.trimmed : this.fail(error);
  }
}

/**
 * U+0000 (JSON's "\u0000") in any string field: PostgreSQL's text cannot store it, so both
 * databases refuse it alike, naming the field (a NUL echoed back helps no one).
 */
const hasNul = (raw: string, field: string): string | null => (raw.includes("\0") ? `Invalid Characters (U+0000): ${field}` : null);

/** A field's own rule: an error text for a bad value, or null. */
type Check = (trimmed: string, raw: string, field: string) => string | null;

const tooLong: Check = (value, _raw, field) => (!fitsIn(value, MAX_TEXT) ? `Field Too Long (max ${MAX_TEXT} characters): ${field}` : null);

const ZIP = /^\d{5}(?:-\d{4})?$/;
const EMAIL = /^(?!\.)(?!.*\.\.)[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]{1,64}(?<!\.)@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** An absolute http(s) URL with a host, as WHATWG URL parses it; null for anything else. */
function parseHttpUrl(value: string): URL | null {
  if (!/^https?:\/\/[^\s/?#]/i.test(value) || /\s/.test(value)) return null;
  const url = URL.parse(value);
  return url !== null && (url.protocol === "http:" || url.protocol === "https:") && url.hostname !== "" ? url : null;
}

export const isHttpUrl = (value: string): boolean => parseHttpUrl(value) !== null;

/** phone_number for both endpoints; returns the E.164 form. */
function takePhone(errors: FieldErrors, body: Body): string | undefined {
  let e164: string | undefined;
  errors.required(body, "phone_number", (_trimmed, raw) => {
    const check = checkPhoneNumber(raw);
    if (check.ok) e164 = check.e164;
    else return check.error === "characters" ? `Invalid Characters: ${echo(raw)}` : `Invalid Phone Number: ${echo(raw)}`;
    return null;
  });
  return e164;
}

// ASCII letters first: toUpperCase() maps "ı" to "I" and "ſ" to "S", which would let "ıa" pass as IA.
const stateCheck = (codes: ReadonlySet<string>, text: string) => (value: string, raw: string) =>
  /^[A-Za-z]{2}$/.test(value) && codes.has(value.toUpperCase()) ? null : `${text}: ${echo(raw)}`;

const zipCheck = (text: string) => (value: string, raw: string) => (ZIP.test(value) ? null : `${text}: ${echo(raw)}`);

const checkState = stateCheck(STATE_CODES, "Invalid State Code (2 characters)");
const checkMailingState = stateCheck(MAILING_STATE_CODES, "Invalid Mailing State Code");
const checkZip = zipCheck("Invalid ZIP Code");
const checkMailingZip = zipCheck("Invalid Mailing ZIP Code");

function certificateUrlCheck(value: string, raw: string): string | null {
  return fitsIn(value, MAX_CERTIFICATE_URL) && isHttpUrl(value)
    ? null
    : `Certificate URL exceeds ${MAX_CERTIFICATE_URL} characters, or not a valid URL ${echo(raw)}`;
}

/**
 * call_back_url: an http(s) URL, and unless private callbacks are allowed, not to localhost or a
 * literal private address (CONTRACT §4), which delivery would refuse anyway (§8). Names that
 * resolve to such addresses can only be judged, and refused, at delivery.
 */
const callbackUrlCheck = (allowPrivate: boolean) => (value: string, raw: string) => {
  const url = fitsIn(value, MAX_CALLBACK_URL) ? parseHttpUrl(value) : null;
  return url !== null && (allowPrivate || literalHostRefusal(url.hostname) === null) ? null : `Invalid Callback URL: ${echo(raw)}`;
};

const CALLBACK_URL_CHECKS = { allowingPrivate: callbackUrlCheck(true), publicOnly: callbackUrlCheck(false) };

export interface LeadRules {
  /** config.allowPrivateCallbacks: development and tests call back to 127.0.0.1. */
  allowPrivateCallbacks: boolean;
}

function emailCheck(value: string, raw: string): string | null {
  return value.length <= MAX_EMAIL && EMAIL.test(value) ? null : `Invalid Email: ${echo(raw)}`;
}

const isPlainObject = (value: unknown): value is object => typeof value === "object" && value !== null && !Array.isArray(value);

/** extra_data: an object or an array of objects; required when certificate_url was not sent. */
function takeExtraData(errors: FieldErrors, body: Body, certificateSent: boolean): string | null | undefined {
  const value = body.extra_data;
  if (value === undefined || value === null) {
    return certificateSent ? null : errors.fail("Missing Field: extra_data (required when certificate_url is not provided)");
  }
  const shapeOk = isPlainObject(value) || (Array.isArray(value) && value.every(isPlainObject));
  return shapeOk ? JSON.stringify(value) : errors.fail("Invalid extra_data: must be an object or an array of objects");
}

/** `street` and `customer_address` name one field; `street` wins when both are sent. */
function streetField(body: Body): string {
  return read(body, "street").kind === "absent" && read(body, "customer_address").kind !== "absent" ? "customer_address" : "street";
}

export function validateLead(body: Body, rules: LeadRules): Validation<ValidLead> {
  const errors = new FieldErrors();
  const phoneE164 = takePhone(errors, body);
  const customerName = errors.required(body, "customer_name");
  const state = errors.required(body, "state", checkState);
  const city = errors.required(body, "city");
  const zip = errors.required(body, "zip", checkZip);
  const streetName = streetField(body);
  const street = errors.required(body, streetName);
  const certificateUrl = errors.optional(body, "certificate_url", certificateUrlCheck);
  const dmName = errors.required(body, "dm_name");
  const utility = errors.required(body, "utility");
  const callBackUrl = errors.optional(body, "call_back_url", rules.allowPrivateCallbacks ? CALLBACK_URL_CHECKS.allowingPrivate : CALLBACK_URL_CHECKS.publicOnly);
  const mailingStreet = errors.required(body, "mailing_street");
  const mailingCity = errors.required(body, "mailing_city");
  const mailingZip = errors.required(body, "mailing_zip", checkMailingZip);
  const mailingState = errors.required(body, "mailing_state", checkMailingState);
  const vendorCampaignName = errors.required(body, "vendor_campaign_name");
  const email = errors.required(body, "email", emailCheck);
  const certificateSent = read(body, "certificate_url").kind !== "absent";
  const extraData = takeExtraData(errors, body, certificateSent);

  if (errors.errors.length > 0) return { ok: false, errors: errors.errors };
  // Every take above succeeded, so none of these is undefined.
  return {
    ok: true,
    value: {
      phoneE164: phoneE164!,
      customerName: customerName!,
      state: state!.toUpperCase(),
      city: city!,
      zip: zip!,
      street: street!,
      certificateUrl: certificateUrl ?? null,
      dmName: dmName!,
      utility: utility!,
      callBackUrl: callBackUrl ?? null,
      mailingStreet: mailingStreet!,
      mailingCity: mailingCity!,
      mailingZip: mailingZip!,
      mailingState: mailingState!.toUpperCase(),
      vendorCampaignName: vendorCampaignName!,
      email: email!,
      extraData: extraData ?? null,
    },
  };
}

/** prePing validates only phone_number, with the same texts. */
export function validatePrePing(body: Body): Validation<{ phoneE164: string }> {
  const errors = new FieldErrors();
  const phoneE164 = takePhone(errors, body);
  return phoneE164 === undefined ? { ok: false, errors: errors.errors } : { ok: true, value: { phoneE164 } };
}
