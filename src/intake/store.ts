// The SQL of intake, prepared once: these run on every prePing and postLead.
import { and, eq, getTableColumns, gt, sql, type Placeholder } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import type { Db } from "../db/client.ts";
import { readDirectly, type ReadInSnapshot } from "../db/group-commit.ts";
import { prepareRead, prepareWrite } from "../db/prepared.ts";
import { callbacks, idempotencyKeys, leadKey, leads, phoneClaimKey, phoneClaims, suppressions } from "../db/schema.ts";

export type NewLead = typeof leads.$inferInsert;
export type NewCallback = typeof callbacks.$inferInsert;

const p = sql.placeholder;

/** `{ column: placeholder("column") }` for every column, to prepare a full-row insert. */
function everyColumn(table: SQLiteTable): Record<string, Placeholder> {
  return Object.fromEntries(Object.keys(getTableColumns(table)).map((key) => [key, p(key)]));
}

/** `read`: the server passes its group committer's, so lookups share one snapshot per turn. */
export function createIntakeStore(db: Db, read: ReadInSnapshot = readDirectly) {
  const suppressed = prepareRead<{ phone: string }, unknown>(db.$client, db.select({ one: sql`1` }).from(suppressions).where(eq(suppressions.phoneE164, p("phone"))));
  const recentClaim = prepareRead<{ phone: number; cutoff: number }, unknown>(db.$client, db
    .select({ one: sql`1` })
    .from(phoneClaims)
    .where(and(eq(phoneClaims.phoneNumber, p("phone")), gt(phoneClaims.claimedAt, p("cutoff")))));
  // The duplicate rule and the suppression list as one statement: insert the claim, or take over a
  // claim older than the window; for a suppressed number or under a live claim nothing changes and
  // `changes` is 0. (Raw SQL: drizzle builds no INSERT … SELECT without a FROM. One statement
  // instead of a lookup and an upsert saves about 2 µs per lead.)
  const claim = db.$client.prepare<unknown, [number, string, number, number, string]>(`
    INSERT INTO phone_claims (phone_number, lead_id, claimed_at)
    SELECT ?1, ?2, ?3 WHERE NOT EXISTS (SELECT 1 FROM suppressions WHERE phone_e164 = ?5)
    ON CONFLICT (phone_number) DO UPDATE SET lead_id = excluded.lead_id, claimed_at = excluded.claimed_at
    WHERE phone_claims.claimed_at <= ?4`);
  const idempotencyLookup = db
    .select({ requestHash: idempotencyKeys.requestHash, leadId: idempotencyKeys.leadId })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.vendorId, p("vendorId")), eq(idempotencyKeys.key, p("key")), gt(idempotencyKeys.createdAt, p("cutoff"))))
    .prepare();
  // An expired key may be reused: its old row is replaced.
  const idempotencySave = prepareWrite<{ vendorId: string; key: string; requestHash: string; leadId: string; now: number }>(db.$client, db
    .insert(idempotencyKeys)
    .values({ vendorId: p("vendorId"), key: p("key"), requestHash: p("requestHash"), leadId: p("leadId"), createdAt: p("now") })
    .onConflictDoUpdate({
      target: [idempotencyKeys.vendorId, idempotencyKeys.key],
      set: { requestHash: sql`excluded.request_hash`, leadId: sql`excluded.lead_id`, createdAt: sql`excluded.created_at` },
    }));

  const purgeKeys = prepareWrite<{ cutoff: number; limit: number }>(db.$client, db
    .delete(idempotencyKeys)
    .where(sql`rowid IN (SELECT rowid FROM ${idempotencyKeys} WHERE ${idempotencyKeys.createdAt} < ${p("cutoff")} LIMIT ${p("limit")})`));
  const vendorLead = db
    .select({ id: leads.id, status: leads.status, rejectionReason: leads.rejectionReason })
    .from(leads)
    .where(and(eq(leads.idKey, p("key")), eq(leads.id, p("leadId")), eq(leads.vendorId, p("vendorId"))))
    .prepare();
  // Two lookups, not a join: the lead's key is computed from its id here (leadKey), not in SQL.
  const claimHolder = db.select({ leadId: phoneClaims.leadId }).from(phoneClaims).where(eq(phoneClaims.phoneNumber, p("phone"))).prepare();
  const recentVendorLead = db
    .select()
    .from(leads)
    .where(and(eq(leads.idKey, p("key")), eq(leads.id, p("leadId")), eq(leads.vendorId, p("vendorId")), gt(leads.createdAt, p("cutoff"))))
    .prepare();
  const insertLead = prepareWrite<Required<NewLead>>(db.$client, db.insert(leads).values(everyColumn(leads) as never));
  const insertCallback = prepareWrite<Required<NewCallback>>(db.$client, db.insert(callbacks).values(everyColumn(callbacks) as never));

  return {
    isSuppressed: (phone: string) => read(() => suppressed.get({ phone })) !== null,
    hasClaimSince: (phone: string, cutoff: number) => read(() => recentClaim.get({ phone: phoneClaimKey(phone), cutoff })) !== null,
    /** Takes the phone number for this lead unless it is suppressed or a claim newer than `cutoff` holds it. */
    claimPhone: (phone: string, leadId: string, now: number, cutoff: number) => claim.run(phoneClaimKey(phone), leadId, now, cutoff, phone).changes === 1,
    findIdempotencyKey: (vendorId: string, key: string, cutoff: number) => idempotencyLookup.get({ vendorId, key, cutoff }),
    saveIdempotencyKey: (row: { vendorId: string; key: string; requestHash: string; leadId: string; now: number }) => idempotencySave.run(row),
    /** Forgets up to `limit` keys older than `cutoff`; returns how many went. */
    purgeIdempotencyKeys: (cutoff: number, limit: number) => purgeKeys.run({ cutoff, limit }).changes,
    /**
     * The lead that holds this number's claim, if `vendorId` sent it after `cutoff`. Runs only when
     * a claim failed (inside the write), so accepting a lead never pays for it.
     */
    claimingLeadOf(phone: string, vendorId: string, cutoff: number) {
      const claim = claimHolder.get({ phone: phoneClaimKey(phone) });
      return claim ? recentVendorLead.get({ key: leadKey(claim.leadId), leadId: claim.leadId, vendorId, cutoff }) : undefined;
    },
    insertLead: (lead: Required<NewLead>) => insertLead.run(lead),
    insertCallback: (callback: Required<NewCallback>) => insertCallback.run(callback),
    findLead: (leadId: string, vendorId: string) => read(() => vendorLead.get({ key: leadKey(leadId), leadId, vendorId })),
  };
}

export type IntakeStore = ReturnType<typeof createIntakeStore>;
