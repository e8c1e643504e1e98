// The phone claims' statements of the batches (store/batches/), beside the per-lead ones (sqlite.ts,
// pg.ts) and from the same texts: the claim's take-over rule, and (PostgreSQL) a rejected lead's
// claim dropped; on SQLite a lead's rejection drops its claim by itself (sqlite.ts).

/**
 * A lead with the number (`phone`, a phone_claims key) finally accepted after `cutoff` (index.ts):
 * found through the leads_phone index, whose expression (schema.ts phoneKeyOf) this repeats;
 * `integer` is the dialect's 64-bit type (INTEGER on SQLite, bigint on PostgreSQL).
 */
export const acceptedSince = (integer: "INTEGER" | "bigint", phone: string, cutoff: string) =>
  `EXISTS (SELECT 1 FROM leads a WHERE CAST(a.phone_e164 AS ${integer}) = ${phone} AND a.status = 'accepted' AND a.decided_at > ${cutoff})`;

/**
 * The duplicate rule as an upsert's conflict clause: a claim is taken over only if it was taken at
 * or before `cutoff` and no lead with the number was finally accepted since (index.ts).
 */
export const claimTakeover = (integer: "INTEGER" | "bigint", cutoff: string) => `
  ON CONFLICT (phone_number) DO UPDATE SET lead_id = excluded.lead_id, claimed_at = excluded.claimed_at
  WHERE phone_claims.claimed_at <= ${cutoff} AND NOT ${acceptedSince(integer, "phone_claims.phone_number", cutoff)}`;

/** Is the number (`phone`, a phone_claims key) held since `cutoff` (PhoneClaimsTable.isHeldSince) by the claim `c`? */
export const heldSince = (integer: "INTEGER" | "bigint", phone: string, cutoff: string) =>
  `(c.claimed_at > ${cutoff} OR ${acceptedSince(integer, phone, cutoff)})`;

export const PG = {
  /** The claims of the rejected leads of `finished` (phone, id) dropped. */
  dropRejectedFinished: `
    DELETE FROM phone_claims p USING finished f WHERE f.status = 'rejected' AND p.phone_number = substr(f.phone, 2)::bigint AND p.lead_id = f.id`,
};
