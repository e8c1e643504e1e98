import { parsePhoneNumberFromString } from "libphonenumber-js/min";

export type PhoneCheck = { ok: true; e164: string } | { ok: false; error: "characters" | "number" };

const VALID_CHARACTERS = /^[0-9 ().+-]+$/;

/**
 * Checks a phone number as CONTRACT §4 defines it: only digits, space, ( ) - . + are allowed, and
 * the number must be a valid NANP number (country code 1). Returns the E.164 form `+1NXXNXXXXXX`.
 */
export function checkPhoneNumber(value: string): PhoneCheck {
  if (!VALID_CHARACTERS.test(value)) return { ok: false, error: "characters" };
  const parsed = parsePhoneNumberFromString(value, "US");
  if (!parsed || parsed.countryCallingCode !== "1" || !parsed.isValid()) return { ok: false, error: "number" };
  return { ok: true, e164: parsed.number };
}
