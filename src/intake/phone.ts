import { Metadata } from "libphonenumber-js/core";
import metadata from "libphonenumber-js/min/metadata";
import { parsePhoneNumberFromString } from "libphonenumber-js/min";

export type PhoneCheck = { ok: true; e164: string } | { ok: false; error: "characters" | "number" };

/** The characters a phone number may be written with (docs/contract.md §4): the lead schema's pattern. */
export const PHONE_CHARACTERS = /^[0-9 ().+-]+$/;

/**
 * The way vendors write a US number almost every time: an optional +1 or 1, then ten digits with
 * the area code optionally in parentheses and single separators. Captures the ten digits.
 */
const COMMON_US_FORM = /^(?:\+?1[ .-]?)?(?:\((\d{3})\)|(\d{3}))[ .-]?(\d{3})[ .-]?(\d{4})$/;

/**
 * Checks a phone number as docs/contract.md §4 defines it: only digits, space, ( ) - . + are allowed, and
 * the number must be a valid NANP number (country code 1). Returns the E.164 form `+1NXXNXXXXXX`.
 */
export function checkPhoneNumber(value: string): PhoneCheck {
  if (!PHONE_CHARACTERS.test(value)) return { ok: false, error: "characters" };
  const e164 = nanpE164(value);
  return e164 === null ? { ok: false, error: "number" } : { ok: true, e164 };
}

/** The E.164 form of a number written with PHONE_CHARACTERS, or null when it is not a valid NANP number. */
export function nanpE164(value: string): string | null {
  const national = commonUsNationalNumber(value);
  if (national !== null) return `+1${national}`;
  const parsed = parsePhoneNumberFromString(value, "US");
  return parsed && parsed.countryCallingCode === "1" && parsed.isValid() ? parsed.number : null;
}

/**
 * The fast path (the full parse is a measurable share of intake's CPU): a number in
 * the common form that is valid in the US numbering plan. The full parse would reach the
 * same answer: it reads the same ten digits and tries the US plan first among the countries of
 * calling code 1. Anything else (other NANP countries, odd formats, invalid numbers) returns null
 * and takes the full parse; a property test holds the two paths equal.
 */
function commonUsNationalNumber(value: string): string | null {
  const form = COMMON_US_FORM.exec(value);
  if (!form) return null;
  const national = (form[1] ?? form[2]!) + form[3]! + form[4]!;
  // Without a country, a +1 number is checked against the main country of calling code 1, the US.
  return VALID_US_TEN_DIGITS.test(national) ? national : null;
}

/** libphonenumber's description of a number type (not in its published types). */
interface NumberTypePlan {
  pattern(): string | undefined;
  possibleLengths(): number[] | undefined;
}

/**
 * What `PhoneNumber.isValid()` decides for ten national digits in the US plan, as one regular
 * expression built once from libphonenumber's own metadata: the plan's national pattern, and the
 * pattern of some number type that allows ten digits (its getNumberType). isValid() rebuilds
 * these expressions on every call, many times the cost of this one (bench/README.md).
 */
const VALID_US_TEN_DIGITS = (() => {
  const plan = new Metadata(metadata) as unknown as {
    selectNumberingPlan(country: "US"): void;
    nationalNumberPattern(): string;
    type(name: string): NumberTypePlan | undefined;
  };
  plan.selectNumberingPlan("US");
  const types = ["FIXED_LINE", "MOBILE", "PREMIUM_RATE", "TOLL_FREE", "SHARED_COST", "VOIP", "PERSONAL_NUMBER", "PAGER", "UAN", "VOICEMAIL"]
    .map((name) => plan.type(name))
    .filter((type) => type?.pattern() && (type.possibleLengths()?.includes(10) ?? true))
    .map((type) => `(?:${type!.pattern()})`);
  return new RegExp(`^(?=(?:${plan.nationalNumberPattern()})$)(?:${types.join("|")})$`);
})();
