// The suppression (do-not-contact) list: operator-managed, keyed by the E.164 number so every
// spelling of a number is one entry.
import { eq } from "drizzle-orm";
import { changedRows } from "../db/changes.ts";
import type { Db } from "../db/client.ts";
import { suppressions } from "../db/schema.ts";
import { checkPhoneNumber } from "../intake/phone.ts";

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
export function addSuppression(db: Db, phone: string, reason: string | null = null, now = Date.now()): boolean {
  const row = { phoneE164: normalisePhone(phone), reason, createdAt: now };
  return changedRows(db.insert(suppressions).values(row).onConflictDoNothing().run()) === 1;
}

/** Removes a number; true when it was listed. */
export function removeSuppression(db: Db, phone: string): boolean {
  return changedRows(db.delete(suppressions).where(eq(suppressions.phoneE164, normalisePhone(phone))).run()) === 1;
}

export function listSuppressions(db: Db) {
  return db.select().from(suppressions).orderBy(suppressions.phoneE164).all();
}
