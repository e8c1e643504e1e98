// PostgreSQL's group commit, at the application's level: the leads that arrive within one turn of
// the event loop go to the database together, as one set-based statement in one transaction, instead
// of six round trips each (BEGIN, claim, lead, callback, key, COMMIT). On this 2-core machine the
// round trips, each a backend wake-up, were the cost, not the WAL flush (bench/README.md).
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
import { driverErrors } from "../db/pg/errors.ts";
import { callbacks, idempotencyKeys, leads } from "../db/pg/schema.ts";
import { IDEMPOTENCY_TTL_MS, type AcceptTogether, type LeadToAccept, type SubmitOutcome } from "../intake/service.ts";
import type { Store } from "./index.ts";
import { rawOn } from "./pg-session.ts";
import { heldCallbackRow, pendingLeadRow } from "./rows.ts";

export interface LeadIntakeOptions {
  /** config.duplicateWindowMs: a claim older than this is taken over (as the per-lead claim's cutoff). */
  duplicateWindowMs: number;
  /** A batch failed and its leads ran alone (for the log). */
  onBatchFailed?: (error: unknown) => void;
}

/** Leads per statement at most: a batch's JSON stays under a few hundred kB. */
const MAX_BATCH = 256;

/**
 * Batches on their way at once. While they are, new leads gather for the next: the database
 * works on one batch while the event loop answers another's requests.
 */
const MAX_IN_FLIGHT = 2;

interface Waiting {
  item: LeadToAccept;
  resolve: (outcome: SubmitOutcome) => void;
  reject: (error: unknown) => void;
}

/** Accepts leads in batches on `db`; `store` (the service's) runs the leads a batch leaves to their own script. */
export function pgLeadIntake(db: PgDb, store: Store<"promise", "promise">, options: LeadIntakeOptions): AcceptTogether {
  let waiting: Waiting[] = [];
  let scheduled = false;
  let inFlight = 0;

  const alone = (w: Waiting) => store.write(w.item.alone).then(w.resolve, w.reject);

  async function run(batch: Waiting[], later: Waiting[]) {
    let accepted: Set<string>;
    try {
      accepted = await acceptBatch(db, batch.map((w) => w.item), options.duplicateWindowMs);
    } catch (error) {
      options.onBatchFailed?.(error);
      accepted = new Set();
    }
    for (const w of batch) {
      if (accepted.has(w.item.lead.id)) w.resolve({ kind: "accepted", leadId: w.item.lead.id, replayed: false });
      else alone(w);
    }
    for (const w of later) alone(w);
  }

  function flush() {
    scheduled = false;
    while (waiting.length > 0 && inFlight < MAX_IN_FLIGHT) {
      const { batch, later, rest } = nextBatch(waiting);
      waiting = rest;
      inFlight++;
      void run(batch, later).finally(() => {
        inFlight--;
        schedule();
      });
    }
  }

  function schedule() {
    if (scheduled || waiting.length === 0 || inFlight >= MAX_IN_FLIGHT) return;
    scheduled = true;
    setImmediate(flush);
  }

  return (item) =>
    new Promise<SubmitOutcome>((resolve, reject) => {
      waiting.push({ item, resolve, reject });
      schedule();
    });
}

/**
 * The first MAX_BATCH leads of `waiting` whose number and key no earlier lead of the batch carries;
 * those that do (`later`) run alone once the batch committed, and see its claims and keys.
 */
function nextBatch(waiting: Waiting[]): { batch: Waiting[]; later: Waiting[]; rest: Waiting[] } {
  const batch: Waiting[] = [];
  const later: Waiting[] = [];
  const phones = new Set<string>();
  const keys = new Set<string>();
  let i = 0;
  for (; i < waiting.length && batch.length < MAX_BATCH; i++) {
    const w = waiting[i]!;
    const key = w.item.key && `${w.item.lead.vendorId}\n${w.item.key.key}`;
    if (phones.has(w.item.fields.phoneE164) || (key && keys.has(key))) {
      later.push(w);
      continue;
    }
    phones.add(w.item.fields.phoneE164);
    if (key) keys.add(key);
    batch.push(w);
  }
  return { batch, later, rest: waiting.slice(i) };
}

/** The JSON record columns of `table`'s rows as the row builders name them (camelCase), with their SQL names. */
function recordColumns(table: Table): { names: string[]; columns: string[]; definition: string } {
  const columns = Object.entries(getTableColumns(table)) as [string, PgColumn][];
  return {
    names: columns.map(([, column]) => column.name),
    columns: columns.map(([key]) => `"${key}"`),
    definition: columns.map(([key, column]) => `"${key}" ${column.getSQLType().replace("bigserial", "bigint")}`).join(", "),
  };
}

const leadRecord = recordColumns(leads);
const callbackRecord = recordColumns(callbacks);
const keyRecord = recordColumns(idempotencyKeys);

/**
 * One statement for a batch: the rows come as three JSON arrays ($1 leads, $2 callbacks, $3 keys;
 * raw SQL: drizzle builds no data-modifying CTE over json_to_recordset). The claim and the key's
 * save are the per-lead script's statements set-based (phone-claims/pg.ts, idempotency-keys/pg.ts),
 * with the same cutoffs: $4 the duplicate window, $5 the key's TTL. Claims are taken in number
 * order, so two instances' batches cannot deadlock on them. Answers each claimed lead and whether
 * its key (if it has one) was saved.
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
    WHERE phone_claims.claimed_at <= excluded.claimed_at - $4
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
  SELECT c.lead_id, k."leadId" IS NULL OR s.lead_id IS NOT NULL AS complete
  FROM claimed c LEFT JOIN key k ON k."leadId" = c.lead_id LEFT JOIN saved_keys s ON s.lead_id = c.lead_id`;

/** A batch's keys were saved meanwhile by another instance: its leads run alone (and replay or conflict). */
class KeyTakenMeanwhile extends Error {}

const json = (rows: object[]) => JSON.stringify(rows, (_key, value) => (typeof value === "bigint" ? value.toString() : value));

/** Stores the leads of `items` the statement can settle, in one transaction; answers their ids. */
async function acceptBatch(db: PgDb, items: LeadToAccept[], duplicateWindowMs: number): Promise<Set<string>> {
  const leadRows = items.map((item) => pendingLeadRow(item.fields, item.lead));
  const callbackRows = items.flatMap(({ fields, lead, callbackId }) =>
    callbackId === null ? [] : [heldCallbackRow({ id: callbackId, leadId: lead.id, vendorId: lead.vendorId, url: fields.callBackUrl! }, lead.createdAt)],
  );
  const keyRows = items.flatMap(({ lead, key }) => (key === null ? [] : [{ vendorId: lead.vendorId, key: key.key, requestHash: key.requestHash, leadId: lead.id, createdAt: lead.createdAt }]));
  const params = [json(leadRows), json(callbackRows), json(keyRows), duplicateWindowMs, IDEMPOTENCY_TTL_MS];
  const rows = await driverErrors(
    db.transaction(async (tx) => {
      const answered = (await rawOn(tx, ACCEPT_BATCH, params)) as unknown as { lead_id: string; complete: boolean }[];
      if (answered.some((row) => !row.complete)) throw new KeyTakenMeanwhile("an idempotency key of the batch was saved meanwhile");
      return answered;
    }),
  );
  return new Set(rows.map((row) => row.lead_id));
}
