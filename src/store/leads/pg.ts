import { and, count, desc, eq, gt, inArray, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { callbacks, leads, phoneKeyOf, vendors } from "../../db/pg/schema.ts";
import { leadKey } from "../../db/schema.ts";
import { changed, sessionOf, type PgOn } from "../pg-session.ts";
import { columnsByName, everyColumn, leadFieldColumns, pendingLeadRow } from "../rows.ts";
import type { LeadFields, LeadsTable, NewLead, StoredLead } from "./index.ts";
import { campaignNamesQuery, leadSearch } from "./search.ts";

const searchColumns = { ...leads, phoneKey: phoneKeyOf(leads.phoneE164) };

const p = sql.placeholder;
const byId = (id: string) => and(eq(leads.idKey, leadKey(id)), eq(leads.id, id));
const byIdPlaceholders = and(eq(leads.idKey, p("key")), eq(leads.id, p("leadId")));

/** The leads table on PostgreSQL: statements prepared once on `db`, run where each script runs. */
export function pgLeads(db: PgDb): (on: PgOn) => LeadsTable {
  const insert = db
    .insert(leads)
    .values(everyColumn(leads) as never)
    .prepare("leads_insert");
  const stateFor = db
    .select({ id: leads.id, status: leads.status, rejectionReason: leads.rejectionReason })
    .from(leads)
    .where(and(byIdPlaceholders, eq(leads.vendorId, p("vendorId"))))
    .prepare("leads_state_for");
  const findRecent = db
    .select(leadFieldColumns(leads))
    .from(leads)
    .where(and(byIdPlaceholders, eq(leads.vendorId, p("vendorId")), gt(leads.createdAt, p("cutoff"))))
    .prepare("leads_find_recent");
  const claimable = and(eq(leads.status, "pending"), lte(leads.decideAfter, p("now")), or(isNull(leads.lockedUntil), lt(leads.lockedUntil, p("now"))));
  // SKIP LOCKED: claimers on other instances pass over the rows one is leasing instead of waiting
  // for it and then finding them leased; the lease filter, re-checked on the locked row, keeps a
  // row leased by a claim that committed meanwhile out.
  const claim = db
    .update(leads)
    .set({ lockedUntil: sql`${p("lockedUntil")}`, claimToken: sql`${p("token")}` })
    .where(
      inArray(
        leads.idKey,
        db.select({ key: leads.idKey }).from(leads).where(claimable).orderBy(leads.decideAfter).limit(p("limit")).for("update", { skipLocked: true }),
      ),
    )
    .returning({
      id: leads.id,
      vendorId: leads.vendorId,
      phoneE164: leads.phoneE164,
      certificateUrl: leads.certificateUrl,
      vendorCampaignName: leads.vendorCampaignName,
      test: leads.test,
    })
    .prepare("leads_claim");
  const operatorDecisionQuery = () => db.select({ decision: leads.operatorDecision, reason: leads.operatorReason }).from(leads).where(byIdPlaceholders);
  const operatorDecisionOf = operatorDecisionQuery().prepare("leads_operator_decision");
  // In a write script the row stays locked until its finish: under READ COMMITTED a `leads decide`
  // committing between this read and the finish would otherwise be overwritten unseen. It waits,
  // then finds the lead no longer pending. A read on the pool takes no lock (it would end at once).
  const operatorDecisionLocked = operatorDecisionQuery().for("update").prepare("leads_operator_decision_locked");
  const finish = db
    .update(leads)
    .set({ status: sql`${p("status")}`, decidedAt: sql`${p("now")}`, rejectionReason: sql`${p("reason")}`, lockedUntil: null, claimToken: null })
    .where(and(byIdPlaceholders, eq(leads.claimToken, p("token")), eq(leads.status, "pending")))
    .prepare("leads_finish");
  const statusOf = db.select({ status: leads.status }).from(leads).where(byIdPlaceholders).prepare("leads_status");

  return (on) => {
    const at = sessionOf(db, on);
    return {
      async insertPending(fields: LeadFields, lead: NewLead) {
        await at(insert).execute(pendingLeadRow(fields, lead));
      },
      stateFor: async (leadId, vendorId) => (await at(stateFor).execute({ key: leadKey(leadId), leadId, vendorId }))[0],
      findRecent: async (leadId, vendorId, cutoff) => (await at(findRecent).execute({ key: leadKey(leadId), leadId, vendorId, cutoff }))[0],
      claimDue: (now, limit, leaseMs, token) => at(claim).execute({ lockedUntil: now + leaseMs, token, now, limit }),
      operatorDecisionOf: async (leadId) => (await at(on === db ? operatorDecisionOf : operatorDecisionLocked).execute({ key: leadKey(leadId), leadId }))[0],
      storedForRules: async (leadId) => {
        const [row] = await on
          .select({ vendor: vendors.name, ...leadFieldColumns(leads) })
          .from(leads)
          .innerJoin(vendors, eq(vendors.id, leads.vendorId))
          .where(byId(leadId));
        if (!row) return undefined;
        const { vendor, ...fields } = row;
        return { vendor, fields };
      },
      finish: async (leadId, token, status, reason, now) =>
        changed(await at(finish).execute({ status, now, reason, key: leadKey(leadId), leadId, token })) === 1,
      recordOperatorDecision: async (leadId, decision, reason) =>
        changed(
          await on
            .update(leads)
            .set({ operatorDecision: decision, operatorReason: reason, factsVersion: sql`${leads.factsVersion} + 1` })
            .where(and(byId(leadId), eq(leads.status, "pending"))),
        ) === 1,
      touchFacts: async (leadId) =>
        changed(
          await on
            .update(leads)
            .set({ factsVersion: sql`${leads.factsVersion} + 1` })
            .where(and(byId(leadId), eq(leads.status, "pending"))),
        ) === 1,
      statusOf: async (leadId) => (await at(statusOf).execute({ key: leadKey(leadId), leadId }))[0]?.status ?? null,
      countPending: async () => (await on.select({ n: count() }).from(leads).where(eq(leads.status, "pending")))[0]!.n,
      countByStatus: (vendorId) =>
        on
          .select({ status: leads.status, n: count() })
          .from(leads)
          .where(and(eq(leads.vendorId, vendorId), eq(leads.test, false)))
          .groupBy(leads.status),
      // async, as tally: a script that reads several lists (campaign-search.ts) awaits only Promises.
      list: async (filter) =>
        await on
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
          .innerJoin(vendors, eq(vendors.id, leads.vendorId))
          .leftJoin(callbacks, eq(callbacks.leadKey, leads.idKey))
          .where(leadSearch(searchColumns, filter))
          .orderBy(desc(leads.idKey))
          .limit(filter.limit),
      campaignNames: async (limit) => (await on.execute<{ name: string }>(campaignNamesQuery(limit))).map((row) => row.name),
      // async: drizzle's builder is a thenable, not a Promise, and a script's op() awaits only Promises.
      tally: async (since, vendorName) =>
        await on
          .select({
            vendor: vendors.name,
            status: leads.status,
            leads: count(),
            decisionMsTotal: sql<number>`coalesce(sum(${leads.decidedAt} - ${leads.createdAt}), 0)::float8`.mapWith(Number),
          })
          .from(leads)
          .innerJoin(vendors, eq(vendors.id, leads.vendorId))
          .where(leadSearch(searchColumns, { createdFrom: since, test: false, vendorName }))
          .groupBy(vendors.name, leads.status),
      detail: async (leadId) =>
        ((
          await on
            .select({ vendor: vendors.name, ...columnsByName(leads, leads.idKey) })
            .from(leads)
            .innerJoin(vendors, eq(vendors.id, leads.vendorId))
            .where(byId(leadId))
        )[0] as StoredLead | undefined) ?? null,
    };
  };
}
