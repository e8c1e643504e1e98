import { and, eq, gt, lte, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { prepareWrite } from "../../db/prepared.ts";
import { idempotencyKeys } from "../../db/schema.ts";
import { WriteConflict } from "../index.ts";
import type { IdempotencyKey, IdempotencyKeysTable } from "./index.ts";

const p = sql.placeholder;

export function sqliteIdempotencyKeys(db: Db): IdempotencyKeysTable {
  const lookup = db
    .select({ requestHash: idempotencyKeys.requestHash, leadId: idempotencyKeys.leadId })
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.vendorId, p("vendorId")), eq(idempotencyKeys.key, p("key")), gt(idempotencyKeys.createdAt, p("cutoff"))))
    .prepare();
  const save = prepareWrite<IdempotencyKey & { now: number; expiredBy: number }>(
    db.$client,
    db
      .insert(idempotencyKeys)
      .values({ vendorId: p("vendorId"), key: p("key"), requestHash: p("requestHash"), leadId: p("leadId"), createdAt: p("now") })
      .onConflictDoUpdate({
        target: [idempotencyKeys.vendorId, idempotencyKeys.key],
        set: { requestHash: sql`excluded.request_hash`, leadId: sql`excluded.lead_id`, createdAt: sql`excluded.created_at` },
        setWhere: lte(idempotencyKeys.createdAt, p("expiredBy")),
      }),
  );
  const purge = prepareWrite<{ cutoff: number; limit: number }>(
    db.$client,
    db
      .delete(idempotencyKeys)
      .where(sql`rowid IN (SELECT rowid FROM ${idempotencyKeys} WHERE ${idempotencyKeys.createdAt} < ${p("cutoff")} LIMIT ${p("limit")})`),
  );

  return {
    find: (vendorId, key, cutoff) => lookup.get({ vendorId, key, cutoff }),
    save({ vendorId, key, requestHash, leadId }, now, expiredBy) {
      if (save.run({ vendorId, key, requestHash, leadId, now, expiredBy }).changes === 0) throw new WriteConflict(`idempotency key ${key} was saved meanwhile`);
    },
    purge: (cutoff, limit) => purge.run({ cutoff, limit }).changes,
  };
}
