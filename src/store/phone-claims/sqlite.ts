import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { prepareWrite } from "../../db/prepared.ts";
import { phoneClaimKey, phoneClaims } from "../../db/schema.ts";
import { listedSql } from "../suppressions/listed.ts";
import { claimTakeover, heldSince } from "./batch-sql.ts";
import type { PhoneClaimsTable } from "./index.ts";

const p = sql.placeholder;

export function sqlitePhoneClaims(db: Db): PhoneClaimsTable {
  // The duplicate rule and the suppression list as one statement: insert the claim, or take over a
  // claim older than the window; for a suppressed number or under a live claim nothing changes and
  // `changes` is 0. (Raw SQL: drizzle builds no INSERT … SELECT without a FROM. One statement
  // is cheaper per lead than a lookup and an upsert.)
  const claim = db.$client.prepare<unknown, [number, string, number, number, string]>(`
    INSERT INTO phone_claims (phone_number, lead_id, claimed_at)
    SELECT ?1, ?2, ?3 WHERE NOT ${listedSql("?5")}
    ${claimTakeover("INTEGER", "?4")}`);
  const held = db.$client.prepare<unknown, [number, number]>(`SELECT 1 FROM phone_claims c WHERE c.phone_number = ?1 AND ${heldSince("INTEGER", "?1", "?2")}`);
  const holder = db
    .select({ leadId: phoneClaims.leadId })
    .from(phoneClaims)
    .where(eq(phoneClaims.phoneNumber, p("phone")))
    .prepare();
  const heldByLead = and(eq(phoneClaims.phoneNumber, p("phone")), eq(phoneClaims.leadId, p("leadId")));
  const drop = prepareWrite<{ phone: number; leadId: string }>(db.$client, db.delete(phoneClaims).where(heldByLead));

  return {
    claim: (phone, leadId, now, cutoff) => claim.run(phoneClaimKey(phone), leadId, now, cutoff, phone).changes === 1,
    isHeldSince: (phone, cutoff) => held.get(phoneClaimKey(phone), cutoff) !== null,
    holderOf: (phone) => holder.get({ phone: phoneClaimKey(phone) })?.leadId ?? null,
    drop: (phone, leadId) => void drop.run({ phone: phoneClaimKey(phone), leadId }),
  };
}
