// What an operator reads about leads: a filtered newest-first list, and one lead with everything
// stored about it, its callback and every delivery attempt. Reads only; beside the running service
// a reader never blocks its writers (SQLite's WAL, PostgreSQL's snapshots).
import { op, type Script } from "../db/script.ts";
import { CLOCK_SKEW_MS, DECISION_ACTION } from "../final-results/operator.ts";
import type { AuditEntry } from "../store/audit/index.ts";
import type { CallbackAttempt, StoredCallback } from "../store/callbacks/index.ts";
import type { Finding } from "../store/findings/index.ts";
import type { Store, Tables } from "../store/index.ts";
import { idPrefixRange } from "../store/leads/search.ts";
import { e164OrNull } from "../suppression/index.ts";
import type { LeadFilter, LeadSummary, StoredLead } from "../store/leads/index.ts";
import { type CheckAnswerView, checkAnswersView } from "../checks/stored.ts";

export type { CallbackAttempt } from "../store/callbacks/index.ts";
export type { LeadSummary, StoredLead } from "../store/leads/index.ts";

export async function listLeads(store: Store, filter: LeadFilter): Promise<LeadSummary[]> {
  return store.read((t) => op(t.leads.list(filter)));
}

/**
 * The leads an operator's text names, newest first: the lead of a whole id, or those whose id starts
 * with it, and those with it as their phone number (a run of digits may be either).
 */
export async function findLeadsMatching(store: Store, text: string, limit: number): Promise<LeadSummary[]> {
  const phoneE164 = e164OrNull(text);
  const byId = idPrefixRange(text) ? await listLeads(store, { idPrefix: text, limit }) : [];
  const byPhone = phoneE164 === null ? [] : await listLeads(store, { phoneE164, limit });
  const seen = new Set(byId.map((lead) => lead.id));
  return [...byId, ...byPhone.filter((lead) => !seen.has(lead.id))].sort((a, b) => b.created_at - a.created_at || (a.id < b.id ? 1 : -1)).slice(0, limit);
}

export interface LeadDetail {
  lead: StoredLead;
  callback: StoredCallback | null;
  attempts: CallbackAttempt[];
  /** Each operator decision recorded for the lead, oldest first: who (`actor`), when (`at`), what (`detail`). */
  decisions: AuditEntry[];
  /** What providers answered about it during its hold (its TrustedForm evidence: certificates/view.ts). */
  findings: Finding[];
  /** What each external check answered it: at intake (stored with the lead), then at the final stage (its findings of kind "check"). */
  checks: CheckAnswerView[];
}

export function* leadDetail(t: Tables, leadId: string): Script<LeadDetail | null> {
  const lead = yield* op(t.leads.detail(leadId));
  if (!lead) return null;
  const callback = yield* op(t.callbacks.detailOf(leadId));
  const decisions = lead.operator_decision === null ? [] : yield* op(t.audit.about(leadId, DECISION_ACTION, decisionWindow(lead)));
  const findings = yield* op(t.findings.of([leadId]));
  const checks = checkAnswersView(typeof lead.check_answers === "string" ? lead.check_answers : null, findings);
  return { lead, callback: callback?.callback ?? null, attempts: callback?.attempts ?? [], decisions, findings, checks };
}

/** When the lead's decisions can have been recorded: while it was pending, give or take the instances' clocks. */
function decisionWindow(lead: StoredLead): { from: number; until: number } {
  const from = Number(lead.created_at) - CLOCK_SKEW_MS;
  return { from, until: lead.decided_at === null ? Number.MAX_SAFE_INTEGER : lead.decided_at + CLOCK_SKEW_MS };
}

/** The lead (with its vendor's name), its callback and the callback's attempts, its findings, from one snapshot. */
export async function findLeadDetail(store: Store, leadId: string): Promise<LeadDetail | null> {
  return store.read((t) => leadDetail(t, leadId));
}
