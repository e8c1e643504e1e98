// PostgreSQL's group commit, at the application's level: the leads that arrive within one turn of
// the event loop go to the database together, as one set-based statement, instead of six round
// trips each (BEGIN, claim, lead, callback, key, COMMIT). The round trips, each a backend wake-up,
// were the cost, not the WAL flush: batching multiplied throughput and cut the CPU per lead
// several times (bench/README.md, "Behind the code").
//
// The statement settles only the common case: a lead whose number it claims and whose key (if any)
// was not live. Every other lead (suppressed, claimed, a re-post, a key's replay or conflict) is
// answered by its own per-lead script after the batch committed, so its answer is exactly the
// script's. A lead whose number or key another lead of the batch already carries waits for that
// commit the same way (one statement cannot claim one number twice). If the statement fails, or a
// key it saves was taken by another instance meanwhile, the batch is rolled back and every lead
// runs alone: a failing lead cannot take the others down.
import { getTableColumns, type Table } from "drizzle-orm";
import type { PgColumn } from "drizzle-orm/pg-core";
import type { PgDb } from "../db/pg/client.ts";
import { driverError, driverErrors } from "../db/pg/errors.ts";
import { callbacks, idempotencyKeys, leads } from "../db/pg/schema.ts";
import { turnBatches, type BatchLimits, type Waiting } from "../db/pg/turn-batches.ts";
import { IDEMPOTENCY_TTL_MS, type IntakeBatches, type LeadToAccept, type SubmitOutcome } from "../intake/service.ts";
import type { Store } from "../store/index.ts";
import { acceptedSince } from "../store/phone-claims/pg.ts";
import { rawOn } from "../store/pg-session.ts";
import { DatabaseWaitTimeout } from "../db/pg/bounded-waits.ts";
import { heldCallbackRow, pendingLeadRow } from "../store/rows.ts";

export interface IntakeBatchOptions {
  /** config.duplicateWindowMs: a claim older than this is taken over (as the per-lead claim's cutoff). */
  duplicateWindowMs: number;
  /** A batch of leads failed and its leads ran alone (for the log). */
  onBatchFailed?: (error: unknown) => void;
}

/**
 * 256 leads' JSON stays under a few hundred kB. One batch on its way at a time: the requests that
 * arrive meanwhile make the next batch, larger, and one statement's cost hardly depends on its
 * size: one in flight did better than two or four (bench/README.md, "Behind the code").
 */
const LIMITS: BatchLimits = { maxBatch: 256, maxInFlight: 1 };

/** postLead's and prePing's batches on `db`; `store` (the service's) runs the leads a batch leaves to their own script. */
export function pgIntakeBatches(db: PgDb, store: Store<"promise", "promise">, options: IntakeBatchOptions): IntakeBatches {
  const alone = (w: Waiting<LeadToAccept, SubmitOutcome>) => store.write(w.item.alone).then(w.resolve, w.reject);

  async function acceptTogether(waiting: Waiting<LeadToAccept, SubmitOutcome>[]) {
    const { batch, later } = firstOfEachNumberAndKey(waiting);
    let accepted: Set<string>;
    try {
      accepted = await acceptBatch(
        db,
        batch.map((w) => w.item),
        options.duplicateWindowMs,
      );
    } catch (error) {
      // No answer within the bound: alone, each lead would wait as long again before its 503
      // (turnBatches answers this batch and the requests gathered behind it).
      const cause = driverError(error);
      if (cause instanceof DatabaseWaitTimeout) throw cause;
      options.onBatchFailed?.(error);
      accepted = new Set();
    }
    for (const w of batch) {
      if (accepted.has(w.item.lead.id)) w.resolve({ kind: "accepted", leadId: w.item.lead.id, replayed: false });
      else void alone(w);
    }
    for (const w of later) void alone(w);
  }

  async function checkTogether(waiting: Waiting<PhoneCheck, boolean>[]) {
    const params = [JSON.stringify(waiting.map((w, i) => ({ i, phone: w.item.phoneE164, cutoff: w.item.claimCutoff })))];
    const blocked = new Set(((await driverErrors(rawOn(db, BLOCKED_AMONG, params))) as unknown as { i: number }[]).map((row) => row.i));
    waiting.forEach((w, i) => w.resolve(blocked.has(i)));
  }

  const accept = turnBatches(acceptTogether, LIMITS);
  const check = turnBatches(checkTogether, LIMITS);
  return { accept, isBlocked: (phoneE164, claimCutoff) => check({ phoneE164, claimCutoff }) };
}

interface PhoneCheck {
  phoneE164: string;
  claimCutoff: number;
}

/**
 * The leads of `waiting` whose number and key no earlier one carries (one statement cannot claim a
 * number twice); the others (`later`) run alone once the batch committed, and see its claims and keys.
 */
function firstOfEachNumberAndKey(waiting: Waiting<LeadToAccept, SubmitOutcome>[]) {
  const batch: Waiting<LeadToAccept, SubmitOutcome>[] = [];
  const later: Waiting<LeadToAccept, SubmitOutcome>[] = [];
  const phones = new Set<string>();
  const keys = new Set<string>();
  for (const w of waiting) {
    const key = w.item.key && `${w.item.lead.vendorId}\n${w.item.key.key}`;
    if (phones.has(w.item.fields.phoneE164) || (key && keys.has(key))) {
      later.push(w);
      continue;
    }
    phones.add(w.item.fields.phoneE164);
    if (key) keys.add(key);
    batch.push(w);
  }
  return { batch, later };
}

/**
 * prePing's rule (service.ts isBlocked: suppressed, or held since the cutoff) for a batch of
 * numbers in one statement, instead of two per number; answers the blocked ones' positions.
 */
const BLOCKED_AMONG = `
  SELECT r.i FROM json_to_recordset($1::text::json) AS r(i int, phone text, cutoff bigint)
  WHERE EXISTS (SELECT 1 FROM suppressions s WHERE s.phone_e164 = r.phone)
     OR EXISTS (
       SELECT 1 FROM phone_claims c WHERE c.phone_number = substr(r.phone, 2)::bigint AND (c.claimed_at > r.cutoff OR ${acceptedSince("c.phone_number", "r.cutoff")})
     )`;

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
 * save are the per-lead script's statements set-based (phone-claims/pg.ts, idempotency-keys/pg.ts),
 * with the same cutoffs: $4 the duplicate window, $5 the key's TTL. Claims are taken in number
 * order, so two instances' batches cannot deadlock on them. Answers the claimed leads. A key that
 * another instance saved after the statement's snapshot (a race of one key) fails the statement, so
 * that nothing of the batch is stored: the failing cast is the only way plain SQL has to raise an
 * error, and a statement of its own needs no BEGIN and COMMIT (two round trips of three per batch).
 */
const ACCEPT_BATCH = `
  WITH lead AS (SELECT * FROM json_to_recordset($1::text::json) AS r(${leadRecord.definition})),
  callback AS (SELECT * FROM json_to_recordset($2::text::json) AS r(${callbackRecord.definition})),
  key AS (SELECT * FROM json_to_recordset($3::text::json) AS r(${keyRecord.definition})),
  candidate AS (
    SELECT l.* FROM lead l
    WHERE NOT EXISTS (SELECT 1 FROM suppressions s WHERE s.phone_e164 = l."phoneE164")
      AND NOT EXISTS (
        SELECT 1 FROM key k JOIN idempotency_keys saved ON saved.vendor_id = k."vendorId" AND saved.key = k.key AND saved.created_at > k."createdAt" - $5
        WHERE k."leadId" = l.id)
  ),
  claimed AS (
    INSERT INTO phone_claims (phone_number, lead_id, claimed_at)
    SELECT substr("phoneE164", 2)::bigint, id, "createdAt" FROM candidate ORDER BY 1
    ON CONFLICT (phone_number) DO UPDATE SET lead_id = excluded.lead_id, claimed_at = excluded.claimed_at
    WHERE phone_claims.claimed_at <= excluded.claimed_at - $4 AND NOT ${acceptedSince("phone_claims.phone_number", "excluded.claimed_at - $4")}
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
    ON CONFLICT (vendor_id, key) DO UPDATE SET request_hash = excluded.request_hash, lead_id = excluded.lead_id, created_at = excluded.created_at
    WHERE idempotency_keys.created_at <= excluded.created_at - $5
    RETURNING lead_id
  )
  SELECT c.lead_id
  FROM claimed c LEFT JOIN key k ON k."leadId" = c.lead_id LEFT JOIN saved_keys s ON s.lead_id = c.lead_id
  WHERE CASE WHEN k."leadId" IS NULL OR s.lead_id IS NOT NULL THEN true ELSE (c.lead_id || ': ${KEY_TAKEN}')::boolean END`;

/** Stores the leads of `items` the statement can settle, in one statement; answers their ids. */
async function acceptBatch(db: PgDb, items: LeadToAccept[], duplicateWindowMs: number): Promise<Set<string>> {
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
  const params = [JSON.stringify(leadRows), JSON.stringify(callbackRows), JSON.stringify(keyRows), duplicateWindowMs, IDEMPOTENCY_TTL_MS];
  const rows = (await driverErrors(rawOn(db, ACCEPT_BATCH, params))) as unknown as { lead_id: string }[];
  return new Set(rows.map((row) => row.lead_id));
}
