// Leads: stored when accepted (pending), claimed by the worker when their hold ends (a lease,
// fenced by its token), and finished once as accepted or rejected. An operator's decision during
// the hold is recorded on the lead and applied when it is decided.
import type { Op } from "../../db/script.ts";
import type { CallbackStatus, LeadStatus, leads } from "../../db/schema.ts";

type LeadRow = typeof leads.$inferSelect;

/** What the vendor sent, as validated: the lead's own fields. */
export type LeadFields = Omit<LeadRow, LeadStateColumn>;

/** A lead's identity, times and state: every column that is not one of the vendor's fields (campaign_folded: derived from one). */
export const LEAD_STATE_COLUMNS = [
  "idKey",
  "id",
  "vendorId",
  "rawRequest",
  "campaignFolded",
  "checkAnswers",
  "status",
  "createdAt",
  "decideAfter",
  "decidedAt",
  "rejectionReason",
  "operatorDecision",
  "operatorReason",
  "lockedUntil",
  "claimToken",
  "factsVersion",
  "test",
] as const;
type LeadStateColumn = (typeof LEAD_STATE_COLUMNS)[number];

/** A new lead's identity and times. */
export interface NewLead {
  id: string;
  vendorId: string;
  /** The request body exactly as received. */
  rawRequest: string;
  createdAt: number;
  /** End of the hold period. */
  decideAfter: number;
  /** The intake checks' answers as JSON (the check_answers column); absent when none ran. */
  checkAnswers?: string | null;
  /** A test lead (docs/contract.md §12 "Test mode"); absent: a real one. */
  test?: boolean;
}

/** A lead the worker holds a lease on, to decide. */
export interface DueLead {
  id: string;
  vendorId: string;
  phoneE164: string;
  certificateUrl: string | null;
  vendorCampaignName: string;
  /** A test lead: its callback says so (SQLite's raw read answers 0 or 1); absent: a real one. */
  test?: boolean | number;
}

export type OperatorDecision = "accept" | "reject";

/**
 * What a due lead's decision reads besides the lead's own fields, and their version: the lead's
 * facts_version, which every change of them bumps (an operator's decision here; a number listed or
 * unlisted by the trigger on suppressions, drizzle/*_leads_facts_version.sql). A decision made on
 * them is recorded only while the version is unchanged: one compared value, not the checks again.
 * Per lead, not one global counter: an unrelated number's suppression must not send a whole batch
 * back. By a trigger for the list: no writer of it (an import, a test, a console) can forget the bump.
 */
export interface DecisionFacts {
  suppressedNow: boolean;
  operatorDecision: { decision: OperatorDecision; reason: string | null } | null;
  version: number;
  /** What final rules read, when asked for (the policy in force has final rules). */
  stored?: StoredForRules;
}

/** What a policy's final rules read of a lead (docs/contract.md §10): its vendor's name and its stored fields, extra_data included. */
export interface StoredForRules {
  vendor: string;
  fields: LeadFields;
}

/** What the vendor's own lookup answers. */
export interface LeadState {
  id: string;
  status: LeadStatus;
  rejectionReason: string | null;
}

export interface LeadSummary {
  id: string;
  created_at: number;
  status: LeadStatus;
  vendor: string;
  phone_e164: string;
  vendor_campaign_name: string;
  decided_at: number | null;
  /** Why it was rejected after posting; null unless rejected. */
  rejection_reason: string | null;
  /** null when the lead has no call_back_url. */
  callback_status: CallbackStatus | null;
  /** A test lead (docs/contract.md §12 "Test mode"). */
  test: boolean;
}

/** Which leads to list (search.ts says how each narrows the scan). */
export interface LeadFilter {
  status?: LeadStatus;
  vendorName?: string;
  /** The E.164 form; the caller normalises what the operator typed. */
  phoneE164?: string;
  /** The vendor's campaign name, exactly. */
  campaign?: string;
  /** The first hexadecimal digits of the lead's id, dashes anywhere. */
  idPrefix?: string;
  /** Created at or after (epoch ms). */
  createdFrom?: number;
  /** Created before (epoch ms). */
  createdBefore?: number;
  /** true: only test leads; false: only real ones; absent: both. */
  test?: boolean;
  /** Only leads older than this one (its id): the next page after it. */
  olderThan?: string;
  limit: number;
}

/** Every stored column of a row, under its column name. */
export type StoredRow = Record<string, string | number | null>;

export type StoredLead = StoredRow & {
  id: string;
  vendor: string;
  status: LeadStatus;
  decide_after: number;
  decided_at: number | null;
  rejection_reason: string | null;
  operator_decision: OperatorDecision | null;
  operator_reason: string | null;
};

/** Leads of one vendor and status created in a window, and the time their decisions took. */
export interface LeadTally {
  vendor: string;
  status: LeadStatus;
  leads: number;
  /** Σ (decided_at − created_at) over these leads (0 while pending). */
  decisionMsTotal: number;
}

export interface LeadsTable {
  /** Stores an accepted lead, pending until its hold ends. */
  insertPending(fields: LeadFields, lead: NewLead): Op<void>;
  /** The vendor's own lead, as its lookup answers it; another vendor's is not found. */
  stateFor(leadId: string, vendorId: string): Op<LeadState | undefined>;
  /** The vendor's own lead if created after `cutoff`, with its fields (to recognise a re-post). */
  findRecent(leadId: string, vendorId: string, cutoff: number): Op<LeadFields | undefined>;
  /** Leases up to `limit` pending leads whose hold ended by `now` to `token`, oldest first. */
  claimDue(now: number, limit: number, leaseMs: number, token: string): Op<DueLead[]>;
  /**
   * The operator's decision recorded for the lead (both null when none); undefined if there is no
   * such lead. In a write script, no decision can be recorded from now until the script ends.
   */
  operatorDecisionOf(leadId: string): Op<{ decision: OperatorDecision | null; reason: string | null } | undefined>;
  /** What final rules read of the lead; undefined if there is no such lead. */
  storedForRules(leadId: string): Op<StoredForRules | undefined>;
  /** Moves the lead to its final status if `token` still holds it; false (nothing written) if not. */
  finish(leadId: string, token: string, status: "accepted" | "rejected", rejectionReason: string | null, now: number): Op<boolean>;
  /**
   * Bumps a pending lead's facts version (DecisionFacts): a fact its decision reads changed other than
   * by the columns above (its certificate's evidence, store/findings/). False if it is not pending.
   */
  touchFacts(leadId: string): Op<boolean>;
  /** Records an operator's decision on a pending lead (a change of its facts: DecisionFacts); false if the lead is not pending (or absent). */
  recordOperatorDecision(leadId: string, decision: OperatorDecision, reason: string | null): Op<boolean>;
  statusOf(leadId: string): Op<LeadStatus | null>;
  countPending(): Op<number>;
  /** How many of the vendor's real leads are in each status (statuses it has none in are left out; test leads, docs/contract.md §12, too). */
  countByStatus(vendorId: string): Op<{ status: LeadStatus; n: number }[]>;
  /** Newest first (by key: creation time), with the vendor's name and the callback's status. */
  list(filter: LeadFilter): Op<LeadSummary[]>;
  /** The distinct campaign names in order, at most `limit` (search.ts: campaignNamesQuery). */
  campaignNames(limit: number): Op<string[]>;
  /**
   * Real leads created at or after `since`, counted by vendor and status (a range of the leads' key),
   * of one vendor when named (its leads alone are read); test leads (docs/contract.md §12) are not counted.
   */
  tally(since: number, vendorName?: string): Op<LeadTally[]>;
  /** Every stored column (but the key) and the vendor's name. */
  detail(leadId: string): Op<StoredLead | null>;
}
