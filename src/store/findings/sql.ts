// The findings' conditions and values, the same on both databases (sqlite.ts, pg.ts build their
// statements around them with their dialect's builder).
import { and, eq, inArray, isNull, lte, or, sql, type Column, type SQL } from "drizzle-orm";
import { type FindingAnswer, type FindingKey, OPEN_OUTCOMES } from "./index.ts";

/** The columns read here, of either dialect's table. */
type Findings = Record<"leadId" | "kind" | "name" | "outcome" | "attempts" | "nextAt", Column>;
type Leads = Record<"id" | "status" | "decideAfter" | "operatorDecision" | "certificateUrl", Column>;

/** The join of a lead to its finding of `key`. */
export const findingOfLead = (f: Findings, l: Leads, key: FindingKey): SQL => and(eq(f.leadId, l.id), eq(f.kind, key.kind), eq(f.name, key.name))!;

/** askableByCertificate's filter over a lead `l` left-joined to its finding `f`. */
export function askable(f: Findings, l: Leads, urlPrefix: string, now: number): SQL {
  return and(
    eq(l.status, "pending"),
    sql`${l.decideAfter} > ${now}`,
    isNull(l.operatorDecision),
    sql`substr(lower(${l.certificateUrl}), 1, ${urlPrefix.length}) = ${urlPrefix}`,
    or(isNull(f.leadId), and(inArray(f.outcome, [...OPEN_OUTCOMES]), lte(f.nextAt, now))),
  )!;
}

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
