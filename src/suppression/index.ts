// The suppression (do-not-contact) list: operator-managed, keyed by the E.164 number so every
// spelling of a number is one entry.
import { op } from "../db/script.ts";
import { checkPhoneNumber } from "../intake/phone.ts";
import type { Suppression } from "../store/suppressions/index.ts";
import { storeOn, type Connection } from "../store/sqlite.ts";

export class SuppressionError extends Error {}

/** The E.164 form of a US number, or null when it is not one. */
export function e164OrNull(phone: string): string | null {
  const check = checkPhoneNumber(phone);
  return check.ok ? check.e164 : null;
}

export function normalisePhone(phone: string): string {
  const e164 = e164OrNull(phone);
  if (e164 === null) throw new SuppressionError(`Not a valid US phone number: ${JSON.stringify(phone)}`);
  return e164;
}

/** Adds a number; true when it was not listed before. */
export function addSuppression(db: Connection, phone: string, reason: string | null = null, now = Date.now()): boolean {
  const row = { phoneE164: normalisePhone(phone), reason, createdAt: now };
  return storeOn(db).write((t) => op(t.suppressions.add(row)));
}

/** Removes a number; true when it was listed. */
export function removeSuppression(db: Connection, phone: string): boolean {
  const phoneE164 = normalisePhone(phone);
  return storeOn(db).write((t) => op(t.suppressions.remove(phoneE164)));
}

export function listSuppressions(db: Connection): Suppression[] {
  return storeOn(db).read((t) => op(t.suppressions.list()));
}
