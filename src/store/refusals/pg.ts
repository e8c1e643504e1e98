import { and, count, desc, gte, inArray, lt, ne, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { refusals } from "../../db/pg/schema.ts";
import type { PgOn } from "../pg-session.ts";
import type { RefusalsTable } from "./index.ts";
import { refusalSearch } from "./search.ts";

export function pgRefusals(_db: PgDb): (on: PgOn) => RefusalsTable {
  return (on) => ({
    insert: async (rows) => {
      if (rows.length > 0) await on.insert(refusals).values([...rows]);
    },
    search: async (filter) =>
      await on
        .select()
        .from(refusals)
        .where(refusalSearch(refusals, filter, (column, needle) => sql`strpos(lower(${column}), ${needle}) > 0`))
        .orderBy(desc(refusals.id))
        .limit(filter.limit),
    countsByRefusers: async (from) =>
      await on
        .select({ refusedBy: refusals.refusedBy, count: count() })
        .from(refusals)
        .where(and(gte(refusals.at, from), ne(refusals.refusedBy, "[]")))
        .groupBy(refusals.refusedBy),
    purge: async (cutoff, limit) => {
      const oldest = on.select({ id: refusals.id }).from(refusals).where(lt(refusals.at, cutoff)).limit(limit);
      return (await on.delete(refusals).where(inArray(refusals.id, oldest)).returning({ id: refusals.id })).length;
    },
  });
}
