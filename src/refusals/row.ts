// A refused postLead as the refusal log keeps it: the phone masked as the logs mask it, the error
// texts without the values they echo, and a policy reason's copy of the phone masked too (a reason
// template may name phone_number). Never the body.
import type { RequestNote } from "../http/request-note.ts";
import { maskPhone } from "../log/index.ts";
import { withoutValues } from "../log/reason.ts";
import type { Refusal } from "../store/refusals/index.ts";

/** Longer than any phone a vendor could mean: kept as "****" rather than part of a text that is not one. */
const LONGEST_PHONE = 32;

/**
 * The phone as sent, masked as the logs mask an E.164 number when it reads as a US one, and the
 * spellings of it a reason could quote (as sent, E.164, bare digits), longest first.
 */
function masked(phone: string): { masked: string; spellings: string[] } {
  const digits = phone.replace(/\D/g, "");
  const e164 = digits.length === 10 ? `+1${digits}` : digits.length === 11 && digits.startsWith("1") ? `+${digits}` : null;
  const compact = phone.replace(/[\s().-]/g, "");
  const shown = e164 !== null ? maskPhone(e164) : compact.length > LONGEST_PHONE ? "****" : maskPhone(compact);
  const spellings = [phone, e164 ?? "", digits].filter((text) => text.length >= 4).sort((a, b) => b.length - a.length);
  return { masked: shown, spellings };
}

export function refusalRow(at: number, status: number, requestId: string, note: RequestNote): Refusal {
  const facts = note.refusal;
  const phone = facts?.phone ? masked(facts.phone) : null;
  let reasons = withoutValues(note.errors ?? []);
  if (phone) reasons = reasons.map((reason) => phone.spellings.reduce((text, spelling) => text.replaceAll(spelling, phone.masked), reason));
  return {
    at,
    vendorId: note.vendorId ?? "",
    campaign: facts?.campaign ?? null,
    phoneMasked: phone?.masked ?? null,
    status,
    reasons: JSON.stringify(reasons),
    requestId,
    refusedBy: JSON.stringify(facts?.refusedBy ?? []),
  };
}
