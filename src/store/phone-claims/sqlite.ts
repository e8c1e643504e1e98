// The phone claims on SQLite, where there is no table of them: a number's claim is its latest lead
// (a test lead claims nothing), unless that lead was rejected, and the claim's time is that lead's
// intake. The claims table held exactly that (a claim taken with a lead's insert, taken over only by
// a later lead's, dropped by its lead's rejection), and was a second B-tree of random keys written
// per accepted lead beside the leads_phone index, which finds the same leads (bench/README.md, issue
// 30 goal 1). SQLite has one writer at a time, and intake's claim and its lead's insert run in one
// transaction, so no row of its own is needed to make one claim win: the lead's row is the claim.
// (PostgreSQL keeps the table: its unique key resolves concurrent transactions, pg.ts.)
import type { Db } from "../../db/client.ts";
import { phoneClaimKey, type LeadStatus } from "../../db/schema.ts";
import { listedSql } from "../suppressions/listed.ts";
import type { PhoneClaimsTable } from "./index.ts";

/** A lead with the number, as the duplicate rule reads it. */
interface LeadOfNumber {
  id: string;
  status: LeadStatus;
  created_at: number;
  decided_at: number | null;
  test: number;
}

/**
 * The claim among the leads with a number: the latest (UUIDv7 ids sort as they were made) that is
 * not a test lead, unless it was rejected.
 */
function claimAmong(leads: LeadOfNumber[]): LeadOfNumber | null {
  let latest: LeadOfNumber | null = null;
  for (const lead of leads) if (lead.test === 0 && (latest === null || lead.id > latest.id)) latest = lead;
  return latest?.status === "rejected" ? null : latest;
}

/** The rule of index.ts: a claim taken after `cutoff`, or a lead with the number finally accepted after it (batch-sql.ts heldSince). */
function heldSince(leads: LeadOfNumber[], cutoff: number): boolean {
  const claim = claimAmong(leads);
  return claim !== null && (claim.created_at > cutoff || leads.some((lead) => lead.status === "accepted" && lead.decided_at! > cutoff));
}

export function sqlitePhoneClaims(db: Db): PhoneClaimsTable {
  const sqlite = db.$client;
  // Every lead with the number, through the leads_phone index (schema.ts phoneKeyOf's expression,
  // which this repeats); usually none. No ORDER BY: with one, SQLite sorts through a temporary
  // B-tree, which more than doubled the statement's cost, so the latest is found here.
  const leadsOf = sqlite.prepare<LeadOfNumber, [number]>("SELECT id, status, created_at, decided_at, test FROM leads WHERE CAST(phone_e164 AS INTEGER) = ?1");
  const listed = sqlite.prepare<unknown, [string]>(`SELECT ${listedSql("?1")} AS listed`);
  const leadsOfNumber = (phone: string) => leadsOf.all(phoneClaimKey(phone));

  return {
    // The duplicate rule and the suppression list; the lead's insert that follows in the same
    // transaction takes the number (intake's acceptLead).
    claim: (phone, _leadId, _now, cutoff) => !(listed.get(phone) as { listed: number }).listed && !heldSince(leadsOfNumber(phone), cutoff),
    isHeldSince: (phone, cutoff) => heldSince(leadsOfNumber(phone), cutoff),
    holderOf: (phone) => claimAmong(leadsOfNumber(phone))?.id ?? null,
    // The lead's rejection, written in the same transaction, drops its claim.
    drop: () => undefined,
  };
}
