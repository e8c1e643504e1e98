import { and, asc, count, eq, gte, inArray, isNull, lt, or, sql } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { prepareWrite } from "../../db/prepared.ts";
import { callbackAttempts, callbacks, leadKey, vendors } from "../../db/schema.ts";
import { columnsByName, everyColumn, heldCallbackRow, replayedCallback } from "../rows.ts";
import { callbackListing } from "./search.ts";
import type { CallbacksTable, DueCallback, StoredCallback } from "./index.ts";

const p = sql.placeholder;
// Keys are found from lead ids (leadKey), never read back: 64-bit keys do not fit a JS number.
const byLead = (leadId: string) => and(eq(callbacks.leadKey, leadKey(leadId)), eq(callbacks.leadId, leadId));
/** Dead and not discarded: the callbacks_dead_waiting index's condition, as literal SQL so the planner matches it. */
const deadWaiting = sql`${callbacks.status} = 'dead' AND ${callbacks.discardedAt} IS NULL`;
const listingColumns = callbacks;
const notLeasedAt = (now: number) => or(isNull(callbacks.lockedUntil), lt(callbacks.lockedUntil, now));

export function sqliteCallbacks(db: Db): CallbacksTable {
  const sqlite = db.$client;
  const insert = prepareWrite<Record<string, unknown>>(sqlite, db.insert(callbacks).values(everyColumn(callbacks) as never));
  const release = prepareWrite<{ payload: string; now: number; key: bigint }>(
    sqlite,
    db
      .update(callbacks)
      .set({ status: "pending", payload: sql`${p("payload")}`, nextAttemptAt: sql`${p("now")}`, updatedAt: sql`${p("now")}` })
      .where(and(eq(callbacks.leadKey, p("key")), eq(callbacks.status, "held"))),
  );
  // A claim is a read of the due rows and a lease on each by its key, in the caller's transaction:
  // cheaper than one UPDATE … WHERE lead_key IN (subquery) RETURNING, which has to check the key
  // against the lead id in SQL too (bench/README.md, "Behind the code"). (Raw SQL: kept as measured.)
  const due = sqlite.prepare<DueCallback, [number, number]>(`
    SELECT c.id, c.lead_id AS leadId, c.vendor_id AS vendorId, c.url, c.payload, c.attempt_count - c.attempts_before_replay AS attemptCount, v.signing_secret AS signingSecret,
      v.previous_signing_secret AS previousSigningSecret, v.previous_secret_until AS previousSecretUntil
    FROM callbacks c LEFT JOIN vendors v ON v.id = c.vendor_id
    WHERE c.status = 'pending' AND c.next_attempt_at <= ?1 AND (c.locked_until IS NULL OR c.locked_until < ?1)
    ORDER BY c.next_attempt_at LIMIT ?2`);
  const lease = sqlite.prepare<unknown, [number, string, bigint]>(`UPDATE callbacks SET locked_until = ?1, claim_token = ?2 WHERE lead_key = ?3`);
  const insertAttempt = prepareWrite<{ callbackId: string } & Record<string, unknown>>(
    sqlite,
    db.insert(callbackAttempts).values({
      callbackId: p("callbackId"),
      attemptNo: sql`(SELECT count(*) + 1 FROM ${callbackAttempts} WHERE ${callbackAttempts.callbackId} = ${p("callbackId")})`,
      startedAt: p("startedAt"),
      durationMs: p("durationMs"),
      statusCode: p("statusCode"),
      error: p("error"),
      responseExcerpt: p("responseExcerpt"),
    }),
  );
  const finish = prepareWrite<{
    status: string;
    nextAt: number | null;
    deliveredAt: number | null;
    error: string | null;
    now: number;
    key: bigint;
    token: string;
  }>(
    sqlite,
    db
      .update(callbacks)
      .set({
        status: sql`${p("status")}`,
        nextAttemptAt: sql`${p("nextAt")}`,
        deliveredAt: sql`${p("deliveredAt")}`,
        lastError: sql`${p("error")}`,
        updatedAt: sql`${p("now")}`,
        attemptCount: sql`${callbacks.attemptCount} + 1`,
        lockedUntil: null,
        claimToken: null,
      })
      .where(and(eq(callbacks.leadKey, p("key")), eq(callbacks.claimToken, p("token")))),
  );
  const putBack = prepareWrite<{ at: number; key: bigint; token: string }>(
    sqlite,
    db
      .update(callbacks)
      .set({ nextAttemptAt: sql`${p("at")}`, lockedUntil: null, claimToken: null })
      .where(and(eq(callbacks.leadKey, p("key")), eq(callbacks.claimToken, p("token")))),
  );
  const replay = prepareWrite<{ now: number; key: bigint; leadId: string }>(
    sqlite,
    db
      .update(callbacks)
      .set(replayedCallback(callbacks.attemptCount))
      .where(and(eq(callbacks.leadKey, p("key")), eq(callbacks.leadId, p("leadId")), inArray(callbacks.status, ["dead", "delivered"]))),
  );
  // Age counts from the final decision (when the callback was released), so a callback failing
  // through its retry schedule shows as old even while it waits for its next attempt. Read from the
  // due index alone (it holds every pending row, with its key), and the leads of only the callbacks
  // whose lead was made (the key's time: leadCreatedAt, key >> 16) by the first-made one's decision:
  // a lead made after that was decided after it too, on the service's clock. Joining every pending
  // callback to its lead cost ten times the CPU per scrape (bench/README.md). INDEXED BY: by rowid
  // the planner walks the table.
  const depth = sqlite.prepare<Awaited<ReturnType<CallbacksTable["depth"]>>, [{ now: number }]>(`
    WITH queue AS (
      SELECT count(*) AS pending, coalesce(sum(next_attempt_at <= $now), 0) AS due, min(lead_key) AS firstKey
      FROM callbacks INDEXED BY callbacks_due WHERE status = 'pending'),
    firstMade AS (SELECT l.decided_at AS decidedAt FROM queue JOIN leads l ON l.id_key = queue.firstKey)
    SELECT pending, due, (
      SELECT min(l.decided_at) FROM callbacks c INDEXED BY callbacks_due JOIN leads l ON l.id_key = c.lead_key
      WHERE c.status = 'pending'
        AND (c.lead_key = queue.firstKey OR (SELECT decidedAt FROM firstMade) IS NULL OR c.lead_key >> 16 <= (SELECT decidedAt FROM firstMade))
    ) AS oldestDecidedAt
    FROM queue`);
  const found = { id: callbacks.id, leadId: callbacks.leadId, status: callbacks.status };

  return {
    hold: (callback, now) => void insert.run(heldCallbackRow(callback, now)),
    release: (leadId, payload, now) => void release.run({ payload, now, key: leadKey(leadId) }),
    // Only what was leased: a row not under its lead's key could not be leased, nor finished.
    claimDue: (now, limit, leaseMs, token) => due.all(now, limit).filter((callback) => lease.run(now + leaseMs, token, leadKey(callback.leadId)).changes === 1),
    recordAttempt(callback, token, attempt, next, now) {
      insertAttempt.run({ callbackId: callback.id, ...attempt });
      return (
        finish.run({
          status: next.kind === "retry" ? "pending" : next.kind,
          nextAt: next.kind === "retry" ? next.at : null,
          deliveredAt: next.kind === "delivered" ? now : null,
          error: attempt.error,
          now,
          key: leadKey(callback.leadId),
          token,
        }).changes === 1
      );
    },
    putBack: (leadId, token, at) => putBack.run({ at, key: leadKey(leadId), token }).changes === 1,
    replay: (leadId, now) => replay.run({ now, key: leadKey(leadId), leadId }).changes === 1,
    retryNow: (leadId, now) =>
      changedRows(
        db
          .update(callbacks)
          .set({ nextAttemptAt: now, updatedAt: now })
          .where(and(byLead(leadId), eq(callbacks.status, "pending"), notLeasedAt(now)))
          .run(),
      ) === 1,
    depth: (now) => depth.get({ now })!,
    countDead: () => db.select({ n: count() }).from(callbacks).where(deadWaiting).get()!.n,
    discard: (leadId, now) =>
      changedRows(
        db
          .update(callbacks)
          .set({ discardedAt: now })
          .where(and(byLead(leadId), deadWaiting))
          .run(),
      ) === 1,
    countUpTo(filter, cap) {
      const { where } = callbackListing(listingColumns, filter);
      const selected = db.select({ one: sql`1` }).from(callbacks).innerJoin(vendors, eq(vendors.id, callbacks.vendorId)).where(where).limit(cap).as("selected");
      return db.select({ n: count() }).from(selected).get()!.n;
    },
    list(filter) {
      const { where, orderBy } = callbackListing(listingColumns, filter);
      return db
        .select({
          id: callbacks.id,
          lead_id: callbacks.leadId,
          vendor: vendors.name,
          url: callbacks.url,
          status: callbacks.status,
          attempt_count: callbacks.attemptCount,
          next_attempt_at: callbacks.nextAttemptAt,
          last_error: callbacks.lastError,
          created_at: callbacks.createdAt,
          updated_at: callbacks.updatedAt,
          delivered_at: callbacks.deliveredAt,
          discarded_at: callbacks.discardedAt,
        })
        .from(callbacks)
        .innerJoin(vendors, eq(vendors.id, callbacks.vendorId))
        .where(where)
        .orderBy(...orderBy)
        .limit(filter.limit)
        .all();
    },
    find: (id) => db.select(found).from(callbacks).where(byLead(id)).get() ?? db.select(found).from(callbacks).where(eq(callbacks.id, id)).get() ?? null,
    deadSince: (since) =>
      db
        .select({ leadId: callbacks.leadId })
        .from(callbacks)
        .where(and(eq(callbacks.status, "dead"), isNull(callbacks.discardedAt), gte(callbacks.updatedAt, since)))
        .all()
        .map((row) => row.leadId),
    detailOf(leadId) {
      const callback = db.select(columnsByName(callbacks, callbacks.leadKey)).from(callbacks).where(byLead(leadId)).get() as StoredCallback | undefined;
      if (!callback) return null;
      const attempts = db
        .select({
          attempt_no: callbackAttempts.attemptNo,
          started_at: callbackAttempts.startedAt,
          status_code: callbackAttempts.statusCode,
          duration_ms: callbackAttempts.durationMs,
          error: callbackAttempts.error,
          response_excerpt: callbackAttempts.responseExcerpt,
        })
        .from(callbackAttempts)
        .where(eq(callbackAttempts.callbackId, callback.id))
        .orderBy(asc(callbackAttempts.attemptNo))
        .all();
      return { callback, attempts };
    },
  };
}
