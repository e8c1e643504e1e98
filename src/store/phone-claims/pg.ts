import { and, eq, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { phoneClaims } from "../../db/pg/schema.ts";
import { phoneClaimKey } from "../../db/schema.ts";
import { changed, rawOn, sessionOf, type PgOn } from "../pg-session.ts";
import { listedSql } from "../suppressions/listed.ts";
import { claimTakeover, heldSince } from "./batch-sql.ts";
import type { PhoneClaimsTable } from "./index.ts";

const p = sql.placeholder;

// The duplicate rule and the suppression list as one statement, as on SQLite. Across instances the
// unique key decides: under READ COMMITTED a second claim of a number waits for the first's row,
// and once that commits it meets the conflict and finds the claim live, so exactly one wins. (Raw
// SQL: drizzle builds no INSERT … SELECT without a FROM.)
const CLAIM = `
  INSERT INTO phone_claims (phone_number, lead_id, claimed_at)
  SELECT $1::bigint, $2::text, $3::bigint WHERE NOT ${listedSql("$5")}
  ${claimTakeover("bigint", "$4::bigint")}`;

const HELD_SINCE = `SELECT 1 FROM phone_claims c WHERE c.phone_number = $1::bigint AND ${heldSince("bigint", "$1::bigint", "$2::bigint")}`;

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
