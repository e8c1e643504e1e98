import { eq } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { leadFindings, leads, vendors } from "../../db/pg/schema.ts";
import { changed, type PgOn } from "../pg-session.ts";
import { leadFieldColumns } from "../rows.ts";
import type { AskableLead, FindingsTable } from "./index.ts";
import {
  askable,
  askableCheckLead,
  askableInScope,
  claimAgain,
  claimRow,
  findingOfLead,
  leadsOfIds,
  ofLeads,
  openFinding,
  soonestDecidedFirst,
  unaskedRow,
} from "./sql.ts";

export function pgFindings(_db: PgDb): (on: PgOn) => FindingsTable {
  return (on) => ({
    askableByCertificate: async (key, urlPrefix, now, limit) =>
      (await on
        .select({
          id: leads.id,
          vendorName: vendors.name,
          phoneE164: leads.phoneE164,
          email: leads.email,
          certificateUrl: leads.certificateUrl,
          decideAfter: leads.decideAfter,
        })
        .from(leads)
        .innerJoin(vendors, eq(vendors.id, leads.vendorId))
        .leftJoin(leadFindings, findingOfLead(leadFindings, leads, key))
        .where(askable(leadFindings, leads, urlPrefix, now))
        .orderBy(soonestDecidedFirst(leads))
        .limit(limit)) as AskableLead[],
    askableInScope: async (key, scope, now, limit) =>
      (
        await on
          .select({ id: leads.id, vendorName: vendors.name, decideAfter: leads.decideAfter, ...leadFieldColumns(leads) })
          .from(leads)
          .innerJoin(vendors, eq(vendors.id, leads.vendorId))
          .leftJoin(leadFindings, findingOfLead(leadFindings, leads, key))
          .where(askableInScope(leadFindings, leads, vendors.name, scope, now))
          .orderBy(soonestDecidedFirst(leads))
          .limit(limit)
      ).map(askableCheckLead),
    claim: async (key, leadIds, now, leaseUntil) => {
      if (leadIds.length === 0) return [];
      return await on
        .insert(leadFindings)
        .values(leadIds.map((leadId) => claimRow(key, leadId, now, leaseUntil)))
        .onConflictDoUpdate({ target: [leadFindings.leadId, leadFindings.kind, leadFindings.name], ...claimAgain(leadFindings, now) })
        .returning({ leadId: leadFindings.leadId, attempts: leadFindings.attempts });
    },
    answer: async (key, leadId, answer) =>
      changed(
        await on
          .update(leadFindings)
          .set(answer)
          .where(openFinding(leadFindings, key, leadId)),
      ) === 1,
    settleUnasked: async (key, leadId, answer) => {
      await on
        .insert(leadFindings)
        .values(unaskedRow(key, leadId, answer))
        .onConflictDoNothing();
    },
    of: async (leadIds, kind) =>
      leadIds.length === 0
        ? []
        : await on
            .select()
            .from(leadFindings)
            .where(ofLeads(leadFindings, leadIds, kind)),
    intakeAnswersOf: async (leadIds) =>
      leadIds.length === 0 ? [] : await on.select({ leadId: leads.id, checkAnswers: leads.checkAnswers }).from(leads).where(leadsOfIds(leads, leadIds)),
  });
}
