// The phone claims: one row per number that blocks new leads, the latest lead accepted for it
// (schema.ts). A claim is taken when a lead is accepted, renewed when it is finally accepted and
// dropped when it is rejected.
import type { Op } from "../../db/script.ts";

export interface PhoneClaimsTable {
  /**
   * Takes the number for this lead unless it is suppressed or a claim newer than `cutoff` holds it;
   * true when taken. The suppression list is part of the rule, so both are checked in one step.
   */
  claim(phoneE164: string, leadId: string, now: number, cutoff: number): Op<boolean>;
  /** Is the number held by a claim taken after `cutoff`? */
  isHeldSince(phoneE164: string, cutoff: number): Op<boolean>;
  /** The lead that holds the number's claim, whatever its age; null when none does. */
  holderOf(phoneE164: string): Op<string | null>;
  /** An accepted lead blocks its number from its final acceptance on. */
  renew(phoneE164: string, leadId: string, now: number): Op<void>;
  /** A rejected lead does not block its number at all. */
  drop(phoneE164: string, leadId: string): Op<void>;
}
