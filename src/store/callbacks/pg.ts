import { and, asc, count, eq, gte, inArray, isNull, lt, lte, min, or, sql, type SQL } from "drizzle-orm";
import type { AnyPgColumn } from "drizzle-orm/pg-core";
import type { PgDb } from "../../db/pg/client.ts";
import { callbackAttempts, callbacks, leads, vendors } from "../../db/pg/schema.ts";
import { leadKey } from "../../db/schema.ts";
import { changed, sessionOf, type PgOn } from "../pg-session.ts";
import { columnsByName, everyColumn, heldCallbackRow, replayedCallback } from "../rows.ts";
import { callbackListing } from "./search.ts";
import type { CallbacksTable, StoredCallback } from "./index.ts";

const p = sql.placeholder;
const listingColumns = callbacks;
const byLead = (leadId: string) => and(eq(callbacks.leadKey, leadKey(leadId)), eq(callbacks.leadId, leadId));
/** Dead and not discarded: the callbacks_dead_waiting index's condition, as literal SQL so the planner matches it. */
const deadWaiting = sql`${callbacks.status} = 'dead' AND ${callbacks.discardedAt} IS NULL`;

/** leadKey in SQL: the first 64 bits of the UUID's hex digits as a signed integer. */
const leadKeyOf = (leadId: typeof callbacks.leadId): SQL => sql`('x' || left(replace(${leadId}, '-', ''), 16))::bit(64)::bigint`;

/** A column of the claimed callback's vendor, read as the column reads it (a bigint time as a number). */
const ofVendor = <T extends AnyPgColumn>(column: T): SQL<T["_"]["notNull"] extends true ? T["_"]["data"] : T["_"]["data"] | null> =>
  sql`(select ${column} from ${vendors} where ${vendors.id} = ${callbacks.vendorId})`.mapWith(column);

/** The callback queue on PostgreSQL: statements prepared once on `db`, run where each script runs. */
export function pgCallbacks(db: PgDb): (on: PgOn) => CallbacksTable {
  const insert = db
    .insert(callbacks)
    .values(everyColumn(callbacks) as never)
    .prepare("callbacks_insert");
  const release = db
    .update(callbacks)
    .set({ status: "pending", payload: sql`${p("payload")}`, nextAttemptAt: sql`${p("now")}`, updatedAt: sql`${p("now")}` })
    .where(and(eq(callbacks.leadKey, p("key")), eq(callbacks.status, "held")))
    .prepare("callbacks_release");
  // One statement: lease the oldest due rows no other claimer holds (SKIP LOCKED; the lease filter
  // is re-checked on each locked row, so one leased by a claim that committed meanwhile is passed
  // over) and answer them with their vendor's secrets. A row not under its lead's key could be
  // neither finished nor given back by its holder, so it is never leased (as on SQLite).
  const claimable = and(
    eq(callbacks.status, "pending"),
    lte(callbacks.nextAttemptAt, p("now")),
    or(isNull(callbacks.lockedUntil), lt(callbacks.lockedUntil, p("now"))),
    eq(callbacks.leadKey, leadKeyOf(callbacks.leadId)),
  );
  const claim = db
    .update(callbacks)
    .set({ lockedUntil: sql`${p("lockedUntil")}`, claimToken: sql`${p("token")}` })
    .where(
      inArray(
        callbacks.leadKey,
        db
          .select({ key: callbacks.leadKey })
          .from(callbacks)
          .where(claimable)
          .orderBy(callbacks.nextAttemptAt)
          .limit(p("limit"))
          .for("update", { skipLocked: true }),
      ),
    )
    .returning({
      id: callbacks.id,
      leadId: callbacks.leadId,
      vendorId: callbacks.vendorId,
      url: callbacks.url,
      payload: sql<string>`${callbacks.payload}`,
      attemptCount: sql<number>`${callbacks.attemptCount} - ${callbacks.attemptsBeforeReplay}`,
      signingSecret: ofVendor(vendors.signingSecret),
      previousSigningSecret: ofVendor(vendors.previousSigningSecret),
      previousSecretUntil: ofVendor(vendors.previousSecretUntil),
    })
    .prepare("callbacks_claim");
  const insertAttempt = db
    .insert(callbackAttempts)
    .values({
      callbackId: p("callbackId"),
      attemptNo: sql`(select count(*) + 1 from ${callbackAttempts} where ${callbackAttempts.callbackId} = ${p("callbackId")})`,
      startedAt: p("startedAt"),
      durationMs: p("durationMs"),
      statusCode: p("statusCode"),
      error: p("error"),
      responseExcerpt: p("responseExcerpt"),
    })
    .prepare("callbacks_insert_attempt");
  const finish = db
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
    .where(and(eq(callbacks.leadKey, p("key")), eq(callbacks.claimToken, p("token"))))
    .prepare("callbacks_finish");
  const putBack = db
    .update(callbacks)
    .set({ nextAttemptAt: sql`${p("at")}`, lockedUntil: null, claimToken: null })
    .where(and(eq(callbacks.leadKey, p("key")), eq(callbacks.claimToken, p("token"))))
    .prepare("callbacks_put_back");
  const replay = db
    .update(callbacks)
    .set(replayedCallback(callbacks.attemptCount))
    .where(and(eq(callbacks.leadKey, p("key")), eq(callbacks.leadId, p("leadId")), inArray(callbacks.status, ["dead", "delivered"])))
    .prepare("callbacks_replay");
  const depth = db
    .select({
      pending: count(),
      due: sql<number>`(count(*) filter (where ${callbacks.nextAttemptAt} <= ${p("now")}))::int`,
      oldestDecidedAt: min(leads.decidedAt),
    })
    .from(callbacks)
    .innerJoin(leads, eq(leads.idKey, callbacks.leadKey))
    .where(eq(callbacks.status, "pending"))
    .prepare("callbacks_depth");
  const found = { id: callbacks.id, leadId: callbacks.leadId, status: callbacks.status };

  return (on) => {
    const at = sessionOf(db, on);
    const findBy = async (where: SQL | undefined) => (await on.select(found).from(callbacks).where(where))[0];
    return {
      async hold(callback, now) {
        await at(insert).execute(heldCallbackRow(callback, now));
      },
      async release(leadId, payload, now) {
        await at(release).execute({ payload, now, key: leadKey(leadId) });
      },
      claimDue: (now, limit, leaseMs, token) => at(claim).execute({ lockedUntil: now + leaseMs, token, now, limit }),
      async recordAttempt(callback, token, attempt, next, now) {
        await at(insertAttempt).execute({ callbackId: callback.id, ...attempt });
        const result = await at(finish).execute({
          status: next.kind === "retry" ? "pending" : next.kind,
          nextAt: next.kind === "retry" ? next.at : null,
          deliveredAt: next.kind === "delivered" ? now : null,
          error: attempt.error,
          now,
          key: leadKey(callback.leadId),
          token,
        });
        return changed(result) === 1;
      },
      putBack: async (leadId, token, dueAt) => changed(await at(putBack).execute({ at: dueAt, key: leadKey(leadId), token })) === 1,
      replay: async (leadId, now) => changed(await at(replay).execute({ now, key: leadKey(leadId), leadId })) === 1,
      retryNow: async (leadId, now) =>
        changed(
          await on
            .update(callbacks)
            .set({ nextAttemptAt: now, updatedAt: now })
            .where(and(byLead(leadId), eq(callbacks.status, "pending"), or(isNull(callbacks.lockedUntil), lt(callbacks.lockedUntil, now)))),
        ) === 1,
      depth: async (now) => (await at(depth).execute({ now }))[0]!,
      countDead: async () => (await on.select({ n: count() }).from(callbacks).where(deadWaiting))[0]!.n,
      discard: async (leadId, now) =>
        changed(
          await on
            .update(callbacks)
            .set({ discardedAt: now })
            .where(and(byLead(leadId), deadWaiting)),
        ) === 1,
      async countUpTo(filter, cap) {
        const { where } = callbackListing(listingColumns, filter);
        const selected = on
          .select({ one: sql`1` })
          .from(callbacks)
          .innerJoin(vendors, eq(vendors.id, callbacks.vendorId))
          .where(where)
          .limit(cap)
          .as("selected");
        return (await on.select({ n: count() }).from(selected))[0]!.n;
      },
      list(filter) {
        const { where, orderBy } = callbackListing(listingColumns, filter);
        return on
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
          .limit(filter.limit);
      },
      find: async (id) => (await findBy(byLead(id))) ?? (await findBy(eq(callbacks.id, id))) ?? null,
      deadSince: async (since) =>
        (
          await on
            .select({ leadId: callbacks.leadId })
            .from(callbacks)
            .where(and(eq(callbacks.status, "dead"), isNull(callbacks.discardedAt), gte(callbacks.updatedAt, since)))
        ).map((row) => row.leadId),
      async detailOf(leadId) {
        const [callback] = (await on.select(columnsByName(callbacks, callbacks.leadKey)).from(callbacks).where(byLead(leadId))) as unknown as StoredCallback[];
        if (!callback) return null;
        const attempts = await on
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
          .orderBy(asc(callbackAttempts.attemptNo));
        return { callback, attempts };
      },
    };
  };
}
