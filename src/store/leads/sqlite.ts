import { and, count, desc, eq, gt, inArray, isNull, lt, lte, or, sql, type Column } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { prepareWrite } from "../../db/prepared.ts";
import { callbacks, leadKey, leads, phoneKeyOf, vendors } from "../../db/schema.ts";
import { columnsByName, everyColumn, leadFieldColumns, pendingLeadRow } from "../rows.ts";
import type { LeadFields, LeadsTable, NewLead, StoredLead } from "./index.ts";
import { campaignNamesQuery, leadSearch } from "./search.ts";

const searchColumns = { ...leads, phoneKey: phoneKeyOf(leads.phoneE164) };

const p = sql.placeholder;
/** A lead is found by its key and its id (leadKey: a key alone could match another UUID). */
const byId = (id: string) => and(eq(leads.idKey, leadKey(id)), eq(leads.id, id));
const byIdPlaceholders = and(eq(leads.idKey, p("key")), eq(leads.id, p("leadId")));
/** A column SQLite's planner may not use an index of (unary +). */
const unindexed = (column: Column) => sql`+${column}`;

export function sqliteLeads(db: Db): LeadsTable {
  const insert = prepareWrite<Record<string, unknown>>(db.$client, db.insert(leads).values(everyColumn(leads) as never));
  const stateFor = db
    .select({ id: leads.id, status: leads.status, rejectionReason: leads.rejectionReason })
    .from(leads)
    .where(and(byIdPlaceholders, eq(leads.vendorId, p("vendorId"))))
    .prepare();
  // The lead's own fields only: not its raw request (up to the body limit), read on every re-post check.
  const findRecent = db
    .select(leadFieldColumns(leads))
    .from(leads)
    .where(and(byIdPlaceholders, eq(leads.vendorId, p("vendorId")), gt(leads.createdAt, p("cutoff"))))
    .prepare();
  const claimable = and(eq(leads.status, "pending"), lte(leads.decideAfter, p("now")), or(isNull(leads.lockedUntil), lt(leads.lockedUntil, p("now"))));
  const claim = db
    .update(leads)
    .set({ lockedUntil: sql`${p("lockedUntil")}`, claimToken: sql`${p("token")}` })
    .where(inArray(leads.idKey, db.select({ key: leads.idKey }).from(leads).where(claimable).orderBy(leads.decideAfter).limit(p("limit"))))
    .returning({
      id: leads.id,
      vendorId: leads.vendorId,
      phoneE164: leads.phoneE164,
      certificateUrl: leads.certificateUrl,
      vendorCampaignName: leads.vendorCampaignName,
      test: leads.test,
    })
    .prepare();
  const operatorDecision = db.select({ decision: leads.operatorDecision, reason: leads.operatorReason }).from(leads).where(byIdPlaceholders).prepare();
  const finish = prepareWrite<{ status: string; now: number; reason: string | null; key: bigint; leadId: string; token: string }>(
    db.$client,
    db
      .update(leads)
      .set({ status: sql`${p("status")}`, decidedAt: sql`${p("now")}`, rejectionReason: sql`${p("reason")}`, lockedUntil: null, claimToken: null })
      .where(and(byIdPlaceholders, eq(leads.claimToken, p("token")), eq(leads.status, "pending"))),
  );

  return {
    insertPending: (fields: LeadFields, lead: NewLead) => void insert.run(pendingLeadRow(fields, lead)),
    stateFor: (leadId, vendorId) => stateFor.get({ key: leadKey(leadId), leadId, vendorId }),
    findRecent: (leadId, vendorId, cutoff) => findRecent.get({ key: leadKey(leadId), leadId, vendorId, cutoff }),
    claimDue: (now, limit, leaseMs, token) => claim.all({ lockedUntil: now + leaseMs, token, now, limit }),
    operatorDecisionOf: (leadId) => operatorDecision.get({ key: leadKey(leadId), leadId }),
    storedForRules: (leadId) => {
      const row = db
        .select({ vendor: vendors.name, ...leadFieldColumns(leads) })
        .from(leads)
        .innerJoin(vendors, eq(vendors.id, leads.vendorId))
        .where(byId(leadId))
        .get();
      if (!row) return undefined;
      const { vendor, ...fields } = row;
      return { vendor, fields };
    },
    finish: (leadId, token, status, reason, now) => finish.run({ status, now, reason, key: leadKey(leadId), leadId, token }).changes === 1,
    recordOperatorDecision: (leadId, decision, reason) =>
      changedRows(
        db
          .update(leads)
          .set({ operatorDecision: decision, operatorReason: reason, factsVersion: sql`${leads.factsVersion} + 1` })
          .where(and(byId(leadId), eq(leads.status, "pending")))
          .run(),
      ) === 1,
    touchFacts: (leadId) =>
      changedRows(
        db
          .update(leads)
          .set({ factsVersion: sql`${leads.factsVersion} + 1` })
          .where(and(byId(leadId), eq(leads.status, "pending")))
          .run(),
      ) === 1,
    statusOf: (leadId) => db.select({ status: leads.status }).from(leads).where(byId(leadId)).get()?.status ?? null,
    countPending: () => db.select({ n: count() }).from(leads).where(eq(leads.status, "pending")).get()!.n,
    countByStatus: (vendorId) =>
      db
        .select({ status: leads.status, n: count() })
        .from(leads)
        .where(and(eq(leads.vendorId, vendorId), eq(leads.test, false)))
        .groupBy(leads.status)
        .all(),
    list: (filter) =>
      db
        .select({
          id: leads.id,
          created_at: leads.createdAt,
          status: leads.status,
          vendor: vendors.name,
          phone_e164: leads.phoneE164,
          vendor_campaign_name: leads.vendorCampaignName,
          decided_at: leads.decidedAt,
          rejection_reason: leads.rejectionReason,
          callback_status: callbacks.status,
          test: leads.test,
        })
        .from(leads)
        // Joined on +vendor_id (unindexed): the leads are walked newest first, by a vendor's index
        // or another (leadSearch), and each one's vendor found by its key.
        .innerJoin(vendors, eq(vendors.id, unindexed(leads.vendorId)))
        .leftJoin(callbacks, eq(callbacks.leadKey, leads.idKey))
        .where(leadSearch(searchColumns, filter, unindexed))
        .orderBy(desc(leads.idKey))
        .limit(filter.limit)
        .all(),
    campaignNames: (limit) => db.all<{ name: string }>(campaignNamesQuery(limit)).map((row) => row.name),
    tally: (since, vendorName) =>
      db
        .select({
          vendor: vendors.name,
          status: leads.status,
          leads: count(),
          decisionMsTotal: sql<number>`coalesce(sum(${leads.decidedAt} - ${leads.createdAt}), 0)`,
        })
        .from(leads)
        .innerJoin(vendors, eq(vendors.id, leads.vendorId))
        .where(leadSearch(searchColumns, { createdFrom: since, test: false, vendorName }))
        .groupBy(vendors.name, leads.status)
        .all(),
    detail: (leadId) =>
      (db
        .select({ vendor: vendors.name, ...columnsByName(leads, leads.idKey) })
        .from(leads)
        .innerJoin(vendors, eq(vendors.id, leads.vendorId))
        .where(byId(leadId))
        .get() as StoredLead | undefined) ?? null,
  };
}
