// The JSON rows the set-based decision statements take and give, on either database (sqlite.ts, pg.ts).
import { leadKey, leads } from "../../db/schema.ts";
import { leadFieldColumns } from "../rows.ts";
import type { DueLead, LeadFields } from "../leads/index.ts";
import type { FactsRow } from "../leads/batch-sql.ts";
import type { DecisionFacts, DecisionRecord } from "./index.ts";

/** The leads' keys and ids, as the JSON array the facts statements read. */
export const leadKeysJson = (leads: DueLead[]): string => JSON.stringify(leads.map((lead) => ({ key: leadKey(lead.id).toString(), id: lead.id })));

const FIELD_KEYS = Object.keys(leadFieldColumns(leads)) as (keyof LeadFields)[];

/** A facts row as DecisionFacts; with `withFields`, the row is factsWithFieldsOf's and carries what final rules read. */
export function factsOfRow(row: FactsRow, withFields = false): DecisionFacts {
  const facts: DecisionFacts = {
    suppressedNow: Boolean(row.suppressed),
    operatorDecision: row.operator_decision ? { decision: row.operator_decision, reason: row.operator_reason } : null,
    version: Number(row.facts_version),
  };
  if (withFields) facts.stored = { vendor: row.vendor_name ?? "", fields: Object.fromEntries(FIELD_KEYS.map((key) => [key, row[key] ?? null])) as LeadFields };
  return facts;
}

/** A decision as the element of the JSON array the recording statements take. */
export const decisionRow = ({ lead, factsVersion, status, reason, payload, finding }: DecisionRecord) => ({
  key: leadKey(lead.id).toString(),
  id: lead.id,
  phone: lead.phoneE164,
  status,
  reason,
  payload,
  factsVersion,
  findingKind: finding?.kind ?? null,
  findingName: finding?.name ?? null,
  findingOutcome: finding?.outcome ?? null,
  findingReason: finding?.reason ?? null,
});
