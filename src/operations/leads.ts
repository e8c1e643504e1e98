// What an operator reads about leads: a filtered newest-first list, and one lead with everything
// stored about it, its callback and every delivery attempt. Reads only; beside the running service
// a reader never blocks its writers (SQLite's WAL, PostgreSQL's snapshots).
import { op, type Script } from "../db/script.ts";
import type { CallbackAttempt, StoredCallback } from "../store/callbacks/index.ts";
import type { Store, Tables } from "../store/index.ts";
import type { LeadFilter, LeadSummary, StoredLead } from "../store/leads/index.ts";

export type { CallbackAttempt } from "../store/callbacks/index.ts";
export type { LeadSummary, StoredLead } from "../store/leads/index.ts";

export async function listLeads(store: Store, filter: LeadFilter): Promise<LeadSummary[]> {
  return store.read((t) => op(t.leads.list(filter)));
}

export interface LeadDetail {
  lead: StoredLead;
  callback: StoredCallback | null;
  attempts: CallbackAttempt[];
}

export function* leadDetail(t: Tables, leadId: string): Script<LeadDetail | null> {
  const lead = yield* op(t.leads.detail(leadId));
  if (!lead) return null;
  const callback = yield* op(t.callbacks.detailOf(leadId));
  return { lead, callback: callback?.callback ?? null, attempts: callback?.attempts ?? [] };
}

/** The lead (with its vendor's name), its callback and the callback's attempts, from one snapshot. */
export async function findLeadDetail(store: Store, leadId: string): Promise<LeadDetail | null> {
  return store.read((t) => leadDetail(t, leadId));
}
