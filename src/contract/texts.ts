// Every text the service answers with (docs/contract.md §1-§10), once. Handlers, the OpenAPI document's
// examples and the tests import these: a text changed here changes everywhere it is said.
// A leaf module: it imports nothing, so every folder may depend on it.

/** A value as it appears in an error text: verbatim, cut to 600 characters with "…" (docs/contract.md §4). */
export function echo(value: string): string {
  if (value.length <= ECHO_LIMIT) return value;
  const chars = Array.from(value);
  return chars.length <= ECHO_LIMIT ? value : `${chars.slice(0, ECHO_LIMIT).join("")}…`;
}

const ECHO_LIMIT = 600;

/** The text of a field whose value breaks the field's rule; `value` is the value as sent. */
export type InvalidText = (value: string, field: string) => string;

// §4 field validation.
export const FIELD_TEXTS = {
  missing: (field: string) => `Missing Field: ${field}`,
  wrongType: (field: string) => `Invalid Type (expected string): ${field}`,
  tooLong: ((_value, field) => `Field Too Long (max 255 characters): ${field}`) satisfies InvalidText,
  /** U+0000 cannot be stored in PostgreSQL's text: both databases refuse it alike, naming the field. */
  nul: (field: string) => `Invalid Characters (U+0000): ${field}`,
  invalidCharacters: ((value) => `Invalid Characters: ${echo(value)}`) satisfies InvalidText,
  invalidPhoneNumber: ((value) => `Invalid Phone Number: ${echo(value)}`) satisfies InvalidText,
  invalidState: ((value) => `Invalid State Code (2 characters): ${echo(value)}`) satisfies InvalidText,
  invalidMailingState: ((value) => `Invalid Mailing State Code: ${echo(value)}`) satisfies InvalidText,
  invalidZip: ((value) => `Invalid ZIP Code: ${echo(value)}`) satisfies InvalidText,
  invalidMailingZip: ((value) => `Invalid Mailing ZIP Code: ${echo(value)}`) satisfies InvalidText,
  invalidEmail: ((value) => `Invalid Email: ${echo(value)}`) satisfies InvalidText,
  invalidCertificateUrl: ((value) => `Certificate URL exceeds 500 characters, or not a valid URL ${echo(value)}`) satisfies InvalidText,
  invalidCallbackUrl: ((value) => `Invalid Callback URL: ${echo(value)}`) satisfies InvalidText,
  missingExtraData: "Missing Field: extra_data (required when certificate_url is not provided)",
  invalidExtraData: "Invalid extra_data: must be an object or an array of objects",
  invalidIdempotencyKey: "Invalid Idempotency-Key: must be 1-255 visible ASCII characters",
} as const;

// §2, §4 body rules.
export const BODY_UNREADABLE = "Request body could not be read";
export const BODY_NOT_UTF8 = "Request body is not valid UTF-8";
export const MALFORMED_JSON = "Malformed JSON body";
export const BODY_NOT_AN_OBJECT = "Request body must be a JSON object";
export const bodyTooLarge = (limitBytes: number) => `Request body exceeds ${limitBytes} bytes`;
/** `levels`: the most objects and arrays open at once, the body's own object being the first. */
export const bodyTooDeep = (levels: number) => `Request body nests objects and arrays deeper than ${levels} levels`;

// §3 authentication, §9 failed-credential throttling.
export const UNAUTHORIZED = "Unauthorized";
export const RATE_LIMIT_EXCEEDED = "Rate limit exceeded";
export const TOO_MANY_FAILURES = "Too many failed authentication attempts";

// §1 statuses that no route chooses.
export const NOT_FOUND = "Not Found";
export const METHOD_NOT_ALLOWED = "Method Not Allowed";
export const INTERNAL_ERROR = "Internal server error";
export const TEMPORARILY_UNAVAILABLE = "Service temporarily unavailable";
export const SHUTTING_DOWN = "Service is shutting down";

// §5, §6 intake answers.
export const PHONE_BLOCKED = "Phone number can not be sent to postLead at this time.";
export const PHONE_CAN_BE_SENT = "Phone number can be sent to postLead.";
export const LEAD_RECEIVED = "Lead received; the final result will be sent to the callback URL.";
export const IDEMPOTENCY_CONFLICT = "Idempotency-Key was already used with a different request body";

// §7, §8 final results, as the callback and the lead lookup say them.
export const LEAD_ACCEPTED = "Lead accepted.";
export const LEAD_REJECTED = "Lead rejected.";
export const LEAD_PENDING = "Lead is pending; the final result is not decided yet.";
export const LEAD_NOT_FOUND = "Lead not found";
export const REASON_SUPPRESSED = "Phone number is on the suppression list.";
export const REASON_OPERATOR = "Rejected by operator";
export const REASON_CERTIFICATE = "Certificate URL could not be verified";
// §11 TrustedForm: a certificate TrustedForm did not verify, with the provider's reason.
export const certificateNotVerified = (reason: string) => `Certificate could not be verified: ${reason}`;
export const TRUSTEDFORM_NO_ANSWER = "TrustedForm could not be reached before the decision was due";
export const TRUSTEDFORM_MALFORMED = "not a valid TrustedForm certificate URL";

// §10 acceptance policy: an entry's reason when the document gives none.
export const ruleRejected = (name: string) => `Rejected by rule: ${name}`;
export const outsideHours = (name: string) => `Outside hours of operation: ${name}`;
export const capReached = (name: string) => `Cap reached: ${name}`;
// §11 external checks: an error that on_error turns into a refusal, and a fail the service gave no reason for.
export const checkUnavailable = (name: string) => `Check unavailable: ${name}`;
export const checkFailed = (name: string) => `Refused by check: ${name}`;
