// The findings' conditions and values, the same on both databases (sqlite.ts, pg.ts build their
// statements around them with their dialect's builder).
import { and, eq, inArray, isNull, lte, or, sql, type Column, type SQL } from "drizzle-orm";
import { leadKey } from "../../db/schema.ts";
import type { LeadFields } from "../leads/index.ts";
import { type AskableCheckLead, type CheckScope, type FindingAnswer, type FindingKey, OPEN_OUTCOMES } from "./index.ts";

/** The columns read here, of either dialect's table. */
type Findings = Record<"leadId" | "kind" | "name" | "outcome" | "attempts" | "nextAt", Column>;
type Leads = Record<"id" | "idKey" | "status" | "decideAfter" | "operatorDecision" | "certificateUrl" | "campaignFolded", Column>;

/** The join of a lead to its finding of `key`. */
export const findingOfLead = (f: Findings, l: Leads, key: FindingKey): SQL => and(eq(f.leadId, l.id), eq(f.kind, key.kind), eq(f.name, key.name))!;

/** A lead still in its hold, no operator's decision, and no finding of the joined key but an open one due by `now`. */
function inHold(f: Findings, l: Leads, now: number): SQL[] {
  return [
    eq(l.status, "pending"),
    sql`${l.decideAfter} > ${now}`,
    isNull(l.operatorDecision),
    or(isNull(f.leadId), and(inArray(f.outcome, [...OPEN_OUTCOMES]), lte(f.nextAt, now)))!,
  ];
}

/** askableByCertificate's filter over a lead `l` left-joined to its finding `f`. */
export function askable(f: Findings, l: Leads, urlPrefix: string, now: number): SQL {
  return and(...inHold(f, l, now), sql`substr(lower(${l.certificateUrl}), 1, ${urlPrefix.length}) = ${urlPrefix}`)!;
}

/**
 * askableInScope's filter over a lead `l` joined to its vendor `v` and left-joined to its finding
 * `f`. Campaigns compare exactly, folded by the policy's fold on both sides (the scope's names, the
 * lead's campaign_folded written at intake): the leads the decision holds in scope, no fewer.
 */
export function askableInScope(f: Findings, l: Leads, vendorName: Column, scope: CheckScope, now: number): SQL {
  const conditions = inHold(f, l, now);
  if (scope.vendors !== null) conditions.push(inArray(vendorName, [...scope.vendors]));
  if (scope.campaigns !== null) conditions.push(inArray(l.campaignFolded, [...scope.campaigns]));
  return and(...conditions)!;
}

/**
 * The askable leads' order: the soonest decided first, ties by key. A total order, the same on every
 * instance, so the claims (claimAgain's multi-row upsert) take the rows' locks in one order and two
 * instances claiming the same leads on PostgreSQL wait for each other instead of deadlocking.
 */
export const soonestDecidedFirst = (l: Leads): SQL => sql`${l.decideAfter}, ${l.idKey}`;

/** A row of askableInScope's select (the lead's fields spread, its id, vendor and hold's end beside them) as an AskableCheckLead. */
export function askableCheckLead(row: Record<string, unknown>): AskableCheckLead {
  const { id, vendorName, decideAfter, ...fields } = row;
  return { id: id as string, vendorName: vendorName as string, decideAfter: Number(decideAfter), fields: fields as LeadFields };
}

/** The leads of these ids, by their key and id (the leads table's primary key is the key). */
export const leadsOfIds = (l: Leads, leadIds: readonly string[]): SQL => and(inArray(l.idKey, leadIds.map(leadKey)), inArray(l.id, [...leadIds]))!;

/** A new claim's row. */
export const claimRow = (key: FindingKey, leadId: string, now: number, leaseUntil: number) => ({
  leadId,
  ...key,
  outcome: "pending",
  attempts: 1,
  firstAt: now,
  nextAt: leaseUntil,
});

/** A claim on an existing row: only an open one that is due. */
export const claimAgain = (f: Findings, now: number) => ({
  set: { attempts: sql`${f.attempts} + 1`, nextAt: sql`excluded.next_at` },
  setWhere: and(inArray(f.outcome, [...OPEN_OUTCOMES]), lte(f.nextAt, now))!,
});

/** The row of `key` and `leadId`, while its outcome is open. */
export const openFinding = (f: Findings, key: FindingKey, leadId: string): SQL =>
  and(eq(f.leadId, leadId), eq(f.kind, key.kind), eq(f.name, key.name), inArray(f.outcome, [...OPEN_OUTCOMES]))!;

/** A settled answer stored without a request. */
export const unaskedRow = (key: FindingKey, leadId: string, answer: FindingAnswer) => ({
  leadId,
  ...key,
  ...answer,
  attempts: 0,
  firstAt: answer.checkedAt,
});

export const ofLeads = (f: Findings, leadIds: readonly string[], kind?: string): SQL =>
  (kind === undefined ? inArray(f.leadId, [...leadIds]) : and(inArray(f.leadId, [...leadIds]), eq(f.kind, kind)))!;
