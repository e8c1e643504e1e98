// A failure's reason as logged: the contract's error texts, with the values a vendor sent cut out
// ("Invalid Email: …"): the texts say which field failed, and a lead's data stays out of the logs.
import { FIELD_TEXTS as TEXTS, type InvalidText } from "../contract/texts.ts";

/** The texts that echo the value sent (docs/contract.md §4); the others name a field or nothing. */
const ECHOING: InvalidText[] = [
  TEXTS.invalidCharacters,
  TEXTS.invalidPhoneNumber,
  TEXTS.invalidState,
  TEXTS.invalidMailingState,
  TEXTS.invalidZip,
  TEXTS.invalidMailingZip,
  TEXTS.invalidEmail,
  TEXTS.invalidCertificateUrl,
  TEXTS.invalidCallbackUrl,
];
const MARK = "\u0000";
/** Each echoing text up to the value it echoes. */
const BEFORE_VALUE = ECHOING.map((text) => text(MARK, "").split(MARK)[0]!);

function withoutValue(text: string): string {
  const before = BEFORE_VALUE.find((prefix) => text.startsWith(prefix));
  return before === undefined ? text : `${before}…`;
}

/** Each error text with the value it echoes cut out: what the refusal log stores. */
export const withoutValues = (errors: readonly string[]): string[] => errors.map(withoutValue);

/** The errors of a failed answer, as one log field: "Missing Field: email; Invalid ZIP Code: …". */
export function loggedReason(errors: readonly string[]): string {
  return errors.map(withoutValue).join("; ");
}
