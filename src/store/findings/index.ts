// A lead's findings (db/findings-schema.ts): what a provider answered about it during its hold, one
// row per lead, kind and name. The asking is claimed (a lease in the row itself, so instances on
// one PostgreSQL database do not ask at once, and a crashed asker's claim runs out), answered, and
// asked again while the answer is open; a settled answer is never overwritten. Read by the
// decision (final-results/) and shown to the operator (operations/leads.ts).
import type { Op } from "../../db/script.ts";
import type { leadFindings } from "../../db/schema.ts";
import type { LeadFields } from "../leads/index.ts";

export type Finding = typeof leadFindings.$inferSelect;

/** What a finding is about: `{ kind: "certificate", name: "trustedform" }`. */
export interface FindingKey {
  kind: string;
  name: string;
}

/**
 * Outcomes that are asked again: none yet ("pending"), a provider that could not answer (a
 * certificate's "unreachable", a check's "error"). Any other is settled.
 */
export const OPEN_OUTCOMES = ["pending", "unreachable", "error"] as const;

/** A lead that may be asked about: pending, its hold not over, with no settled finding and none claimed or due later. */
export interface AskableLead {
  id: string;
  vendorName: string;
  phoneE164: string;
  email: string;
  certificateUrl: string;
  decideAfter: number;
}

/** A lead a final-stage check may ask about: as AskableLead, with every field it may send. */
export interface AskableCheckLead {
  id: string;
  vendorName: string;
  decideAfter: number;
  fields: LeadFields;
}

/** A check's scope as the database filters it: vendor names, campaigns folded (contract/campaigns.ts, as leads.campaign_folded); null: all. */
export interface CheckScope {
  vendors: readonly string[] | null;
  campaigns: readonly string[] | null;
}

/**
 * A settled finding a decision records with its lead, in the decision's transaction, unless the lead
 * has one of its key (FindingsTable.settleUnasked): what the decision knew when nobody had asked.
 */
export interface FindingAtDecision extends FindingKey {
  outcome: string;
  reason: string | null;
}

/** A provider's answer as stored. */
export interface FindingAnswer {
  outcome: string;
  reason: string | null;
  /** JSON, the kind's own fields. */
  detail: string | null;
  raw: string | null;
  checkedAt: number;
  /** When to ask again, for an open outcome (ignored for a settled one). */
  nextAt: number;
}

export interface FindingsTable {
  /**
   * Leads pending at `now` whose hold ends after it, whose certificate_url starts with
   * `urlPrefix` (lower case; compared case-insensitively), without an operator's decision, and
   * with no finding of `key` but an open one due by `now`: the soonest decided first (ties by key), `limit` at most.
   */
  askableByCertificate(key: FindingKey, urlPrefix: string, now: number, limit: number): Op<AskableLead[]>;
  /**
   * Leads pending at `now` whose hold ends after it, in `scope`, without an operator's decision, and
   * with no finding of `key` but an open one due by `now`: the soonest decided first (ties by key), `limit` at most.
   */
  askableInScope(key: FindingKey, scope: CheckScope, now: number, limit: number): Op<AskableCheckLead[]>;
  /**
   * Claims the asking for each lead until `leaseUntil`: a new pending row, or an open row due by
   * `now` whose attempts go up by one. Answers the leads claimed with their attempt's number.
   */
  claim(key: FindingKey, leadIds: readonly string[], now: number, leaseUntil: number): Op<{ leadId: string; attempts: number }[]>;
  /** Stores the answer while the finding is open; false if it is settled already (or gone). */
  answer(key: FindingKey, leadId: string, answer: FindingAnswer): Op<boolean>;
  /** Records a settled answer without asking (no request was made: attempts stay 0), unless a finding exists. */
  settleUnasked(key: FindingKey, leadId: string, answer: FindingAnswer): Op<void>;
  /** The findings of these leads (of `kind` when given). */
  of(leadIds: readonly string[], kind?: string): Op<Finding[]>;
  /** What the intake checks answered these leads (leads.check_answers, JSON; null: none ran), by lead id. */
  intakeAnswersOf(leadIds: readonly string[]): Op<{ leadId: string; checkAnswers: string | null }[]>;
}
