import { and, eq, gt, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { prepareRead, prepareWrite } from "../../db/prepared.ts";
import { phoneClaimKey, phoneClaims } from "../../db/schema.ts";
import type { PhoneClaimsTable } from "./index.ts";

const p = sql.placeholder;

export function sqlitePhoneClaims(db: Db): PhoneClaimsTable {
  // The duplicate rule and the suppression list as one statement: insert the claim, or take over a
  // claim older than the window; for a suppressed number or under a live claim nothing changes and
  // `changes` is 0. (Raw SQL: drizzle builds no INSERT … SELECT without a FROM. One statement
  // instead of a lookup and an upsert saves about 2 µs per lead.)
  const claim = db.$client.prepare<unknown, [number, string, number, number, string]>(`
    INSERT INTO phone_claims (phone_number, lead_id, claimed_at)
    SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM suppressions WHERE phone_e164 = ?5)
    ON CONFLICT (phone_number) DO UPDATE SET lead_id = excluded.lead_id, claimed_at = excluded.claimed_at
    WHERE phone_claims.claimed_at <= ?4`);
  const heldSince = prepareRead<{ phone: number; cutoff: number }, unknown>(
    db.$client,
    db
      .select({ one: sql`1` })
      .from(phoneClaims)
      .where(and(eq(phoneClaims.phoneNumber, p("phone")), gt(phoneClaims.claimedAt, p("cutoff")))),
  );
  const holder = db
    .select({ leadId: phoneClaims.leadId })
    .from(phoneClaims)
    .where(eq(phoneClaims.phoneNumber, p("phone")))
    .prepare();
  const heldByLead = and(eq(phoneClaims.phoneNumber, p("phone")), eq(phoneClaims.leadId, p("leadId")));
  const renew = prepareWrite<{ now: number; phone: number; leadId: string }>(
    db.$client,
    db
      .update(phoneClaims)
      .set({ claimedAt: sql`${p("now")}` })
      .where(heldByLead),
  );
  const drop = prepareWrite<{ phone: number; leadId: string }>(db.$client, db.delete(phoneClaims).where(heldByLead));

  return {
    claim: (phone, leadId, now, cutoff) => claim.run(phoneClaimKey(phone), leadId, now, cutoff, phone).changes === 1,
    isHeldSince: (phone, cutoff) => heldSince.get({ phone: phoneClaimKey(phone), cutoff }) !== null,
    holderOf: (phone) => holder.get({ phone: phoneClaimKey(phone) })?.leadId ?? null,
    renew: (phone, leadId, now) => void renew.run({ now, phone: phoneClaimKey(phone), leadId }),
    drop: (phone, leadId) => void drop.run({ phone: phoneClaimKey(phone), leadId }),
  };
}
