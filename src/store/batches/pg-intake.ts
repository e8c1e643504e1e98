// PostgreSQL's batched intake statements (backend/pg-intake.ts gathers the requests): a turn's new
// leads stored by one statement, and a turn's prePings and checked leads screened by one (what may
// answer them before the policy). The first writes four tables (leads, callbacks, phone_claims,
// idempotency_keys): it is their one writer besides their homes, and takes each rule from its
// home's text (suppressions/listed.ts, phone-claims/batch-sql.ts, idempotency-keys/batch-sql.ts),
// so no rule is written twice.
import { getTableColumns, type Table } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { PgDb } from "../../db/pg/client.ts";
import { driverErrors } from "../../db/pg/errors.ts";
import { callbacks, idempotencyKeys, leads } from "../../db/pg/schema.ts";
import { everySlotTaken, SLOT_COLUMNS, slotRecord, slotsTaken } from "../cap-usage/batch-sql.ts";
import { type CapCounter, keyOfCounter } from "../cap-usage/index.ts";
import { keyTakeover, liveKey } from "../idempotency-keys/batch-sql.ts";
import type { NewLead, LeadFields } from "../leads/index.ts";
import { rawOn } from "../pg-session.ts";
import { claimTakeover, heldSince } from "../phone-claims/batch-sql.ts";
import { heldCallbackRow, pendingLeadRow } from "../rows.ts";
import { listedSql } from "../suppressions/listed.ts";

/** A lead for the batch: its rows as the per-lead script would write them, and the cap counters it takes a slot of. */
export interface BatchedLead {
  fields: LeadFields;
  lead: NewLead;
  callbackId: string | null;
  key: { key: string; requestHash: string } | null;
  caps: readonly CapCounter[];
}

/**
 * What may answer a request before the policy, for a turn's requests in one statement instead of
 * two or three each: its number blocked (intake/before-policy.ts isBlocked: suppressed, or held
 * since the cutoff) or, for a postLead with a key, the key live (answerOfKey's lookup). A prePing
 * sends no key: a null key matches no row. Answers those requests' positions.
 */
const HELD_BACK_AMONG = `
  SELECT r.i FROM json_to_recordset($1::text::json) AS r(i int, phone text, cutoff bigint, "vendorId" text, key text, "keyCutoff" bigint)
  WHERE ${listedSql("r.phone")}
     OR EXISTS (SELECT 1 FROM phone_claims c WHERE c.phone_number = substr(r.phone, 2)::bigint AND ${heldSince("bigint", "c.phone_number", "r.cutoff")})
     OR EXISTS (SELECT 1 FROM idempotency_keys saved WHERE ${liveKey("saved", "r", 'r."keyCutoff"')})`;

/** The slots taken of each counter of a turn's prePings (store/cap-usage's `used`, for many counters in one statement). */
const USED_AMONG = `
  SELECT coalesce(u.used, 0)::int AS used
  FROM json_to_recordset($1::text::json) AS r(i int, name text, bucket text, "windowStart" bigint)
  LEFT JOIN cap_usage u ON u.cap_name = r.name AND u.bucket = r.bucket AND u.window_start = r."windowStart"
  ORDER BY r.i`;

/** The slots taken of each of `counters`, in their order (0 for a counter with no row). */
export async function usedAmong(db: PgDb, counters: readonly Omit<CapCounter, "max" | "windowEnd">[]): Promise<number[]> {
  const params = [JSON.stringify(counters.map(({ name, bucket, windowStart }, i) => ({ i, name, bucket, windowStart })))];
  return ((await driverErrors(rawOn(db, USED_AMONG, params))) as unknown as { used: number }[]).map((row) => row.used);
}

/** A request HELD_BACK_AMONG screens: its number and claim cutoff, and a postLead's key with the cutoff of its TTL. */
export interface BeforePolicyFacts {
  phoneE164: string;
  claimCutoff: number;
  key: { vendorId: string; key: string; cutoff: number } | null;
}

/** The positions of the requests among `requests` whose number is blocked or whose key is live. */
export async function heldBackAmong(db: PgDb, requests: readonly BeforePolicyFacts[]): Promise<Set<number>> {
  const rows = requests.map(({ phoneE164, claimCutoff, key }, i) => ({
    i,
    phone: phoneE164,
    cutoff: claimCutoff,
    ...(key && { vendorId: key.vendorId, key: key.key, keyCutoff: key.cutoff }),
  }));
  return new Set(((await driverErrors(rawOn(db, HELD_BACK_AMONG, [JSON.stringify(rows)]))) as unknown as { i: number }[]).map((row) => row.i));
}

/** The JSON record columns of `table`'s rows as the row builders name them (camelCase), with their SQL names. */
function recordColumns(table: Table): { names: string[]; columns: string[]; definition: string } {
  const columns = Object.entries(getTableColumns(table)) as [string, PgColumn][];
  return {
    names: columns.map(([, column]) => column.name),
    columns: columns.map(([key]) => `"${key}"`),
    definition: columns.map(([key, column]) => `"${key}" ${column.getSQLType()}`).join(", "),
  };
}

const leadRecord = recordColumns(leads);
const callbackRecord = recordColumns(callbacks);
const keyRecord = recordColumns(idempotencyKeys);

/** In the error when a key of the batch was saved meanwhile by another instance. */
const KEY_TAKEN = "its idempotency key was saved meanwhile by another instance";
/**
 * One statement for a batch: the rows come as three JSON arrays ($1 leads, $2 callbacks, $3 keys;
 * raw SQL: drizzle builds no data-modifying CTE over json_to_recordset). The claim and the key's
 * save are the per-lead script's rules set-based, with the same cutoffs: $4 the duplicate window,
 * $5 the key's TTL. Claims are taken in number order, so two instances' batches cannot deadlock on
 * them. Answers the claimed leads. A key that another instance saved after the statement's
 * snapshot (a race of one key) fails the statement, so that nothing of the batch is stored: the
 * failing cast is the only way plain SQL has to raise an error, and a statement of its own needs no
 * BEGIN and COMMIT (two round trips of three per batch).
 *
 * Caps ($6: each lead's counters by their index in $7, the batch's distinct counters: a lead's
 * slots are three small pairs, not three copies of their counters): each counter takes the slots of all its claimed leads
 * at once (cap-usage/batch-sql.ts). A counter without room for all of them fails the statement
 * and every lead runs its own script, which takes its slot while one is left and refuses the
 * rest: the answers are the per-lead ones, exactly.
 */
const ACCEPT_BATCH = `
  WITH lead AS (SELECT * FROM json_to_recordset($1::text::json) AS r(${leadRecord.definition})),
  callback AS (SELECT * FROM json_to_recordset($2::text::json) AS r(${callbackRecord.definition})),
  key AS (SELECT * FROM json_to_recordset($3::text::json) AS r(${keyRecord.definition})),
  candidate AS (
    SELECT l.* FROM lead l
    WHERE NOT ${listedSql('l."phoneE164"')}
      AND NOT EXISTS (SELECT 1 FROM key k JOIN idempotency_keys saved ON ${liveKey("saved", "k", 'k."createdAt" - $5')} WHERE k."leadId" = l.id)
  ),
  claimed AS (
    INSERT INTO phone_claims (phone_number, lead_id, claimed_at)
    SELECT substr("phoneE164", 2)::bigint, id, "createdAt" FROM candidate ORDER BY 1
    ${claimTakeover("bigint", "excluded.claimed_at - $4")}
    RETURNING lead_id
  ),
  stored_leads AS (
    INSERT INTO leads (${leadRecord.names.join(", ")})
    SELECT ${leadRecord.columns.map((c) => `l.${c}`).join(", ")} FROM lead l JOIN claimed c ON c.lead_id = l.id
  ),
  held_callbacks AS (
    INSERT INTO callbacks (${callbackRecord.names.join(", ")})
    SELECT ${callbackRecord.columns.map((c) => `b.${c}`).join(", ")} FROM callback b JOIN claimed c ON c.lead_id = b."leadId"
  ),
  saved_keys AS (
    INSERT INTO idempotency_keys (${keyRecord.names.join(", ")})
    SELECT ${keyRecord.columns.map((c) => `k.${c}`).join(", ")} FROM key k JOIN claimed c ON c.lead_id = k."leadId"
    ${keyTakeover("excluded.created_at - $5")}
    RETURNING lead_id
  ),
  slot AS (
    SELECT p."leadId", c.* FROM json_to_recordset($6::text::json) AS p("leadId" text, i int)
    JOIN json_to_recordset($7::text::json) AS c(i int, ${SLOT_COLUMNS}) USING (i)
  ),
  ${slotsTaken('slot s JOIN claimed c ON c.lead_id = s."leadId"')}
  SELECT c.lead_id
  FROM claimed c LEFT JOIN key k ON k."leadId" = c.lead_id LEFT JOIN saved_keys s ON s.lead_id = c.lead_id
  WHERE CASE WHEN k."leadId" IS NULL OR s.lead_id IS NOT NULL THEN true ELSE (c.lead_id || ': ${KEY_TAKEN}')::boolean END
    AND ${everySlotTaken("c.lead_id")}`;

/** Stores the leads of `items` the statement can settle, in one statement; answers their ids. */
export async function acceptBatch(db: PgDb, items: BatchedLead[], cutoffs: { duplicateWindowMs: number; idempotencyTtlMs: number }): Promise<Set<string>> {
  // The 64-bit keys as text: JSON has no BigInt, and a replacer function costs more per lead.
  const leadRows = items.map((item) => {
    const row = pendingLeadRow(item.fields, item.lead);
    return { ...row, idKey: row.idKey.toString() };
  });
  const callbackRows = items.flatMap(({ fields, lead, callbackId }) => {
    if (callbackId === null) return [];
    const row = heldCallbackRow({ id: callbackId, leadId: lead.id, vendorId: lead.vendorId, url: fields.callBackUrl! }, lead.createdAt);
    return [{ ...row, leadKey: row.leadKey.toString() }];
  });
  const keyRows = items.flatMap(({ lead, key }) =>
    key === null ? [] : [{ vendorId: lead.vendorId, key: key.key, requestHash: key.requestHash, leadId: lead.id, createdAt: lead.createdAt }],
  );
  const params = [
    JSON.stringify(leadRows),
    JSON.stringify(callbackRows),
    JSON.stringify(keyRows),
    cutoffs.duplicateWindowMs,
    cutoffs.idempotencyTtlMs,
    ...slotParams(items),
  ];
  const rows = (await driverErrors(rawOn(db, ACCEPT_BATCH, params))) as unknown as { lead_id: string }[];
  return new Set(rows.map((row) => row.lead_id));
}

/** ACCEPT_BATCH's $6 and $7: each lead's counters by index, and the batch's distinct counters. */
function slotParams(items: BatchedLead[]): [string, string] {
  const indexOf = new Map<string, number>();
  const counters: object[] = [];
  const slots: { leadId: string; i: number }[] = [];
  for (const { lead, caps } of items) {
    for (const cap of caps) {
      const key = keyOfCounter(cap);
      let i = indexOf.get(key);
      if (i === undefined) {
        i = counters.length;
        indexOf.set(key, i);
        counters.push({ i, ...slotRecord(cap) });
      }
      slots.push({ leadId: lead.id, i });
    }
  }
  return [JSON.stringify(slots), JSON.stringify(counters)];
}

/** A turn's prePings' slots of their `pings` caps, all or none (cap-usage/batch-sql.ts). */
const TAKE_SLOTS = `
  WITH slot AS (SELECT * FROM json_to_recordset($1::text::json) AS r(i int, ${SLOT_COLUMNS})),
  ${slotsTaken("slot s")}
  SELECT count(*) FROM slot s WHERE ${everySlotTaken("s.i::text")}`;

/**
 * Takes a slot of each of `counters` (one per prePing and cap: a counter may come several times), in
 * one statement; fails with CAPS_SHORT (cap-usage/batch-sql.ts isCapsShort), taking none, when a
 * counter has too little room.
 */
export async function takeSlots(db: PgDb, counters: readonly CapCounter[]): Promise<void> {
  await driverErrors(rawOn(db, TAKE_SLOTS, [JSON.stringify(counters.map((counter, i) => ({ i, ...slotRecord(counter) })))]));
}
