// The phone claims: per number that blocks new leads, the latest lead accepted for it (a row of
// PostgreSQL's phone_claims; on SQLite the lead's own row: sqlite.ts). A claim is taken when a lead is accepted and dropped when it is rejected. Its time is
// the lead's intake: a final acceptance since the cutoff also holds the claim, read from the leads
// by number only when the claim itself is older than the window (so deciding a lead does not write
// its number's claim: a random page per accepted lead, the costliest statement: bench/README.md).
import type { Op } from "../../db/script.ts";

export interface PhoneClaimsTable {
  /**
   * Takes the number for this lead unless it is suppressed or held since `cutoff` (a claim taken, or
   * a lead with the number finally accepted, after it); true when taken. The suppression list is
   * part of the rule, so both are checked in one step. The caller inserts the lead in the same
   * transaction: on SQLite that row is the claim.
   */
  claim(phoneE164: string, leadId: string, now: number, cutoff: number): Op<boolean>;
  /** Is the number held since `cutoff`: by a claim taken after it, or a final acceptance after it? */
  isHeldSince(phoneE164: string, cutoff: number): Op<boolean>;
  /** The lead that holds the number's claim, whatever its age; null when none does. */
  holderOf(phoneE164: string): Op<string | null>;
  /** A rejected lead does not block its number at all. */
  drop(phoneE164: string, leadId: string): Op<void>;
}
