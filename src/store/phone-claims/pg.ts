import { and, eq, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { phoneClaims } from "../../db/pg/schema.ts";
import { phoneClaimKey } from "../../db/schema.ts";
import { changed, rawOn, sessionOf, type PgOn } from "../pg-session.ts";
import type { PhoneClaimsTable } from "./index.ts";

const p = sql.placeholder;

/**
 * A lead with the number (`phone`, a phone_claims key) finally accepted after `cutoff` (index.ts):
 * found through the leads_phone index, whose expression (pg/schema.ts phoneKeyOf) this repeats.
 */
export const acceptedSince = (phone: string, cutoff: string) =>
  `EXISTS (SELECT 1 FROM leads a WHERE CAST(a.phone_e164 AS bigint) = ${phone} AND a.status = 'accepted' AND a.decided_at > ${cutoff})`;

// The duplicate rule and the suppression list as one statement, as on SQLite. Across instances the
// unique key decides: under READ COMMITTED a second claim of a number waits for the first's row,
// and once that commits it meets the conflict and finds the claim live, so exactly one wins. (Raw
// SQL: drizzle builds no INSERT … SELECT without a FROM.)
const CLAIM = `
  INSERT INTO phone_claims (phone_number, lead_id, claimed_at)
  SELECT $1::bigint, $2::text, $3::bigint WHERE NOT EXISTS (SELECT 1 FROM suppressions WHERE phone_e164 = $5)
  ON CONFLICT (phone_number) DO UPDATE SET lead_id = excluded.lead_id, claimed_at = excluded.claimed_at
  WHERE phone_claims.claimed_at <= $4 AND NOT ${acceptedSince("$1::bigint", "$4::bigint")}`;

const HELD_SINCE = `SELECT 1 FROM phone_claims WHERE phone_number = $1::bigint AND (claimed_at > $2::bigint OR ${acceptedSince("$1::bigint", "$2::bigint")})`;

/** The phone claims on PostgreSQL: statements prepared once on `db`, run where each script runs. */
export function pgPhoneClaims(db: PgDb): (on: PgOn) => PhoneClaimsTable {
  const holder = db
    .select({ leadId: phoneClaims.leadId })
    .from(phoneClaims)
    .where(eq(phoneClaims.phoneNumber, p("phone")))
    .prepare("phone_claims_holder");
  const heldByLead = and(eq(phoneClaims.phoneNumber, p("phone")), eq(phoneClaims.leadId, p("leadId")));
  const drop = db.delete(phoneClaims).where(heldByLead).prepare("phone_claims_drop");

  return (on) => {
    const at = sessionOf(db, on);
    return {
      claim: async (phone, leadId, now, cutoff) => changed(await rawOn(on, CLAIM, [phoneClaimKey(phone), leadId, now, cutoff, phone])) === 1,
      isHeldSince: async (phone, cutoff) => (await rawOn(on, HELD_SINCE, [phoneClaimKey(phone), cutoff])).length > 0,
      holderOf: async (phone) => (await at(holder).execute({ phone: phoneClaimKey(phone) }))[0]?.leadId ?? null,
      async drop(phone, leadId) {
        await at(drop).execute({ phone: phoneClaimKey(phone), leadId });
      },
    };
  };
}
