// What an operator reads about leads: a filtered newest-first list, and one lead with everything
// stored about it, its callback and every delivery attempt. Reads only; beside the running service
// (WAL) a reader never blocks its writers.
import type { Database } from "bun:sqlite";
import { leadKey, type CallbackStatus, type LeadStatus } from "../db/schema.ts";

export interface LeadSummary {
  id: string;
  created_at: number;
  status: LeadStatus;
  vendor: string;
  phone_e164: string;
  vendor_campaign_name: string;
  decided_at: number | null;
  /** null when the lead has no call_back_url. */
  callback_status: CallbackStatus | null;
}

export interface LeadFilter {
  status?: LeadStatus;
  vendorName?: string;
  limit: number;
}

export function listLeads(sqlite: Database, filter: LeadFilter): LeadSummary[] {
  // Conditions are added only when given, so the planner can use leads_vendor_created for a vendor.
  const conditions: string[] = [];
  const params: (string | number)[] = [];
  if (filter.status) {
    conditions.push("l.status = ?");
    params.push(filter.status);
  }
  if (filter.vendorName) {
    conditions.push("v.name = ?");
    params.push(filter.vendorName);
  }
  const where = conditions.length > 0 ? `WHERE ${conditions.join(" AND ")}` : "";
  return sqlite
    .query<LeadSummary, (string | number)[]>(`
      SELECT l.id, l.created_at, l.status, v.name AS vendor, l.phone_e164, l.vendor_campaign_name, l.decided_at,
             c.status AS callback_status
      FROM leads l JOIN vendors v ON v.id = l.vendor_id LEFT JOIN callbacks c ON c.lead_key = l.id_key
      ${where}
      ORDER BY l.created_at DESC, l.id DESC LIMIT ?`)
    .all(...params, filter.limit);
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
  operator_decision: "accept" | "reject" | null;
  operator_reason: string | null;
};

export type StoredCallback = StoredRow & { id: string; status: CallbackStatus };

export interface CallbackAttempt {
  attempt_no: number;
  started_at: number;
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  response_excerpt: string | null;
}

export interface LeadDetail {
  lead: StoredLead;
  callback: StoredCallback | null;
  attempts: CallbackAttempt[];
}

/** The lead (with its vendor's name), its callback and the callback's attempts, from one snapshot. */
export function findLeadDetail(sqlite: Database, leadId: string): LeadDetail | null {
  const read = sqlite.transaction((): LeadDetail | null => {
    const key = leadKey(leadId);
    const lead = sqlite
      .query<StoredLead, [bigint, string]>("SELECT v.name AS vendor, l.* FROM leads l JOIN vendors v ON v.id = l.vendor_id WHERE l.id_key = ? AND l.id = ?")
      .get(key, leadId);
    if (!lead) return null;
    const callback = sqlite.query<StoredCallback, [bigint]>("SELECT * FROM callbacks WHERE lead_key = ?").get(key);
    const attempts = callback
      ? sqlite
          .query<CallbackAttempt, [string]>(
            "SELECT attempt_no, started_at, status_code, duration_ms, error, response_excerpt FROM callback_attempts WHERE callback_id = ? ORDER BY attempt_no",
          )
          .all(callback.id)
      : [];
    return { lead: withoutKey(lead, "id_key"), callback: callback && withoutKey(callback, "lead_key"), attempts };
  });
  return read();
}

/** A row without its 64-bit key: read as a JS number it would be rounded, and the id says the same. */
function withoutKey<Row extends StoredRow>(row: Row, key: string): Row {
  const { [key]: _key, ...rest } = row;
  return rest as Row;
}
