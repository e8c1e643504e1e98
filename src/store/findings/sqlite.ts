import { eq } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { leadFindings, leads, vendors } from "../../db/schema.ts";
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

export function sqliteFindings(db: Db): FindingsTable {
  return {
    askableByCertificate: (key, urlPrefix, now, limit) =>
      db
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
        .limit(limit)
        .all() as AskableLead[],
    askableInScope: (key, scope, now, limit) =>
      db
        .select({ id: leads.id, vendorName: vendors.name, decideAfter: leads.decideAfter, ...leadFieldColumns(leads) })
        .from(leads)
        .innerJoin(vendors, eq(vendors.id, leads.vendorId))
        .leftJoin(leadFindings, findingOfLead(leadFindings, leads, key))
        .where(askableInScope(leadFindings, leads, vendors.name, scope, now))
        .orderBy(soonestDecidedFirst(leads))
        .limit(limit)
        .all()
        .map(askableCheckLead),
    claim: (key, leadIds, now, leaseUntil) => {
      if (leadIds.length === 0) return [];
      return db
        .insert(leadFindings)
        .values(leadIds.map((leadId) => claimRow(key, leadId, now, leaseUntil)))
        .onConflictDoUpdate({ target: [leadFindings.leadId, leadFindings.kind, leadFindings.name], ...claimAgain(leadFindings, now) })
        .returning({ leadId: leadFindings.leadId, attempts: leadFindings.attempts })
        .all();
    },
    answer: (key, leadId, answer) =>
      changedRows(
        db
          .update(leadFindings)
          .set(answer)
          .where(openFinding(leadFindings, key, leadId))
          .run(),
      ) === 1,
    settleUnasked: (key, leadId, answer) =>
      void db
        .insert(leadFindings)
        .values(unaskedRow(key, leadId, answer))
        .onConflictDoNothing()
        .run(),
    of: (leadIds, kind) =>
      leadIds.length === 0
        ? []
        : db
            .select()
            .from(leadFindings)
            .where(ofLeads(leadFindings, leadIds, kind))
            .all(),
    intakeAnswersOf: (leadIds) =>
      leadIds.length === 0 ? [] : db.select({ leadId: leads.id, checkAnswers: leads.checkAnswers }).from(leads).where(leadsOfIds(leads, leadIds)).all(),
  };
}
