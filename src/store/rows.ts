// Column helpers the tables of both databases share.
import { getTableColumns, sql, type Column, type Placeholder, type Table } from "drizzle-orm";
import { foldCampaign } from "../contract/campaigns.ts";
import { leadKey } from "../db/schema.ts";
import { LEAD_STATE_COLUMNS, type LeadFields, type NewLead } from "./leads/index.ts";

let lastLeadId = "";
let lastLeadKey = 0n;

/**
 * leadKey, remembering the last id: accepting a lead keys the lead and then its callback, and the
 * key costs a regex test and a BigInt parse. With the single spread in the lead's insert, it took
 * a seventh off submitLead's write path (bench/README.md, "Behind the code").
 */
export function keyOfLead(id: string): bigint {
  if (id !== lastLeadId) {
    lastLeadKey = leadKey(id);
    lastLeadId = id;
  }
  return lastLeadKey;
}

/** `{ column: placeholder("column") }` for every column, to prepare a full-row insert. */
export function everyColumn(table: Table): Record<string, Placeholder> {
  return Object.fromEntries(Object.keys(getTableColumns(table)).map((key) => [key, sql.placeholder(key)]));
}

/**
 * A select of every column but `except`, keyed by its SQL name: the operator's view of a stored row
 * (its fields print under their column names). The 64-bit keys are left out by their callers: read
 * as a JS number they would be rounded, and the id says the same.
 */
export function columnsByName<C extends Column>(table: Table, except: C): Record<string, C> {
  return Object.fromEntries((Object.values(getTableColumns(table)) as C[]).filter((column) => column !== except).map((column) => [column.name, column]));
}

/** The columns of a lead's own fields (LeadFields), for a select of either database's leads table. */
export function leadFieldColumns<T extends Table>(table: T): Omit<T["_"]["columns"], (typeof LEAD_STATE_COLUMNS)[number]> {
  const columns: Record<string, Column> = { ...getTableColumns(table) };
  for (const name of LEAD_STATE_COLUMNS) delete columns[name];
  return columns as never;
}

/** A new lead's full row: pending, undecided, unleased, its campaign folded. One spread, the rest written out (see keyOfLead). */
export function pendingLeadRow(fields: LeadFields, lead: NewLead) {
  return {
    ...fields,
    idKey: keyOfLead(lead.id),
    id: lead.id,
    vendorId: lead.vendorId,
    rawRequest: lead.rawRequest,
    campaignFolded: foldCampaign(fields.vendorCampaignName),
    checkAnswers: lead.checkAnswers ?? null,
    createdAt: lead.createdAt,
    decideAfter: lead.decideAfter,
    status: "pending",
    decidedAt: null,
    rejectionReason: null,
    operatorDecision: null,
    operatorReason: null,
    lockedUntil: null,
    claimToken: null,
    factsVersion: 0,
    test: lead.test ?? false,
  };
}

/** A lead's callback as written with the lead: held, with no payload or schedule until it is decided. */
export function heldCallbackRow({ id, leadId, vendorId, url }: { id: string; leadId: string; vendorId: string; url: string }, now: number) {
  return {
    id,
    leadKey: keyOfLead(leadId),
    leadId,
    vendorId,
    url,
    status: "held",
    payload: null,
    attemptCount: 0,
    attemptsBeforeReplay: 0,
    nextAttemptAt: null,
    lockedUntil: null,
    claimToken: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    deliveredAt: null,
    discardedAt: null,
  };
}

/**
 * What a replay sets (the `now` placeholder): due now, unleased, and its attempts so far kept as
 * the base its retry schedule counts from, so the total stays counted.
 */
export function replayedCallback(attemptCount: Column) {
  const now = sql`${sql.placeholder("now")}`;
  return {
    status: "pending" as const,
    attemptsBeforeReplay: sql`${attemptCount}`,
    nextAttemptAt: now,
    updatedAt: now,
    lockedUntil: null,
    claimToken: null,
    discardedAt: null,
  };
}
