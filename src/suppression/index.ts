// The suppression (do-not-contact) list: operator-managed, keyed by the E.164 number so every
// spelling of a number is one entry.
import { op } from "../db/script.ts";
import { checkPhoneNumber } from "../intake/phone.ts";
import type { Suppression } from "../store/suppressions/index.ts";
import { auditedChange, auditEntry } from "../store/audit/index.ts";
import type { Store } from "../store/index.ts";

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

/** Adds a number; true when it was not listed before (only then is the addition audited, with its reason). */
export async function addSuppression(store: Store, phone: string, reason: string | null, actor: string, now = Date.now()): Promise<boolean> {
  const row = { phoneE164: normalisePhone(phone), reason, createdAt: now };
  const audit = auditEntry({ actor, action: "suppression.add", subject: row.phoneE164, detail: reason }, now);
  return store.write((t) => auditedChange(t.suppressions.add(row), t.audit, audit));
}

/** Removes a number; true when it was listed (only then is the removal audited). */
export async function removeSuppression(store: Store, phone: string, actor: string, now = Date.now()): Promise<boolean> {
  const phoneE164 = normalisePhone(phone);
  const audit = auditEntry({ actor, action: "suppression.remove", subject: phoneE164 }, now);
  return store.write((t) => auditedChange(t.suppressions.remove(phoneE164), t.audit, audit));
}

/** A number's entry (any spelling), or null when it is not listed. */
export async function findSuppression(store: Store, phone: string): Promise<Suppression | null> {
  const phoneE164 = normalisePhone(phone);
  return store.read((t) => op(t.suppressions.find(phoneE164)));
}

/** The first `limit` entries by number, or all of them. */
export async function listSuppressions(store: Store, limit?: number): Promise<Suppression[]> {
  return store.read((t) => op(t.suppressions.list(limit)));
}
