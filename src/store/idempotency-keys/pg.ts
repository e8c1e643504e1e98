import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { idempotencyKeys } from "../../db/pg/schema.ts";
import { WriteConflict } from "../index.ts";
import { changed, sessionOf, type PgOn } from "../pg-session.ts";
import type { IdempotencyKeysTable } from "./index.ts";

const p = sql.placeholder;

/** The idempotency keys on PostgreSQL: statements prepared once on `db`, run where each script runs. */
export function pgIdempotencyKeys(db: PgDb): (on: PgOn) => IdempotencyKeysTable {
  const lookup = db
    .select({ requestHash: idempotencyKeys.requestHash, leadId: idempotencyKeys.leadId })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.vendorId, p("vendorId")), eq(idempotencyKeys.key, p("key")), gt(idempotencyKeys.createdAt, p("cutoff"))))
    .prepare("idempotency_find");
  const save = db
    .insert(idempotencyKeys)
    .values({ vendorId: p("vendorId"), key: p("key"), requestHash: p("requestHash"), leadId: p("leadId"), createdAt: p("now") })
    .onConflictDoUpdate({
      target: [idempotencyKeys.vendorId, idempotencyKeys.key],
      set: { requestHash: sql`excluded.request_hash`, leadId: sql`excluded.lead_id`, createdAt: sql`excluded.created_at` },
      // Two instances can take one key at once (with different numbers, so no phone claim orders
      // them): the second's save waits for the first's row, then finds it fresh and changes nothing.
      setWhere: lte(idempotencyKeys.createdAt, p("expiredBy")),
    })
    .prepare("idempotency_save");
  // ctid: PostgreSQL's row address, as rowid is SQLite's; a chunk of old rows without a key lookup each.
  const purge = db
    .delete(idempotencyKeys)
    .where(sql`ctid IN (SELECT ctid FROM ${idempotencyKeys} WHERE ${idempotencyKeys.createdAt} < ${p("cutoff")} LIMIT ${p("limit")})`)
    .prepare("idempotency_purge");
  return (on) => {
    const at = sessionOf(db, on);
    return {
      find: async (vendorId, key, cutoff) => (await at(lookup).execute({ vendorId, key, cutoff }))[0],
      async save({ vendorId, key, requestHash, leadId }, now, expiredBy) {
        if (changed(await at(save).execute({ vendorId, key, requestHash, leadId, now, expiredBy })) === 0)
          throw new WriteConflict(`idempotency key ${key} was saved meanwhile`);
      },
      purge: async (cutoff, limit) => changed(await at(purge).execute({ cutoff, limit })),
    };
  };
}
