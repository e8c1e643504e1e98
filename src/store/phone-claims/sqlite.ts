import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { prepareWrite } from "../../db/prepared.ts";
import { phoneClaimKey, phoneClaims } from "../../db/schema.ts";
import type { PhoneClaimsTable } from "./index.ts";

const p = sql.placeholder;

/**
 * A lead with the number (`phone`, a phone_claims key) finally accepted after `cutoff` (index.ts):
 * found through the leads_phone index, whose expression (schema.ts phoneKeyOf) this repeats.
 */
const acceptedSince = (phone: string, cutoff: string) =>
  `EXISTS (SELECT 1 FROM leads a WHERE CAST(a.phone_e164 AS INTEGER) = ${phone} AND a.status = 'accepted' AND a.decided_at > ${cutoff})`;

export function sqlitePhoneClaims(db: Db): PhoneClaimsTable {
  // The duplicate rule and the suppression list as one statement: insert the claim, or take over a
  // claim older than the window; for a suppressed number or under a live claim nothing changes and
  // `changes` is 0. (Raw SQL: drizzle builds no INSERT … SELECT without a FROM. One statement
  // is cheaper per lead than a lookup and an upsert.)
  const claim = db.$client.prepare<unknown, [number, string, number, number, string]>(`
    INSERT INTO phone_claims (phone_number, lead_id, claimed_at)
    SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM suppressions WHERE phone_e164 = ?5)
    ON CONFLICT (phone_number) DO UPDATE SET lead_id = excluded.lead_id, claimed_at = excluded.claimed_at
    WHERE phone_claims.claimed_at <= ?4 AND NOT ${acceptedSince("?1", "?4")}`);
  const heldSince = db.$client.prepare<unknown, [number, number]>(
    `SELECT 1 FROM phone_claims WHERE phone_number = ?1 AND (claimed_at > ?2 OR ${acceptedSince("?1", "?2")})`,
  );
  const holder = db
    .select({ leadId: phoneClaims.leadId })
    .from(phoneClaims)
    .where(eq(phoneClaims.phoneNumber, p("phone")))
    .prepare();
  const heldByLead = and(eq(phoneClaims.phoneNumber, p("phone")), eq(phoneClaims.leadId, p("leadId")));
  const drop = prepareWrite<{ phone: number; leadId: string }>(db.$client, db.delete(phoneClaims).where(heldByLead));

  return {
    claim: (phone, leadId, now, cutoff) => claim.run(phoneClaimKey(phone), leadId, now, cutoff, phone).changes === 1,
    isHeldSince: (phone, cutoff) => heldSince.get(phoneClaimKey(phone), cutoff) !== null,
    holderOf: (phone) => holder.get({ phone: phoneClaimKey(phone) })?.leadId ?? null,
    drop: (phone, leadId) => void drop.run({ phone: phoneClaimKey(phone), leadId }),
  };
}
