import { and, count, desc, gte, inArray, lt, ne, sql } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { refusals } from "../../db/schema.ts";
import type { RefusalsTable } from "./index.ts";
import { refusalSearch } from "./search.ts";

export function sqliteRefusals(db: Db): RefusalsTable {
  return {
    insert: (rows) => {
      if (rows.length > 0)
        db.insert(refusals)
          .values([...rows])
          .run();
    },
    search: (filter) =>
      db
        .select()
        .from(refusals)
        .where(refusalSearch(refusals, filter, (column, needle) => sql`instr(lower(${column}), ${needle}) > 0`))
        .orderBy(desc(refusals.id))
        .limit(filter.limit)
        .all(),
    countsByRefusers: (from) =>
      db
        .select({ refusedBy: refusals.refusedBy, count: count() })
        .from(refusals)
        .where(and(gte(refusals.at, from), ne(refusals.refusedBy, "[]")))
        .groupBy(refusals.refusedBy)
        .all(),
    purge: (cutoff, limit) => {
      const oldest = db.select({ id: refusals.id }).from(refusals).where(lt(refusals.at, cutoff)).limit(limit);
      return changedRows(db.delete(refusals).where(inArray(refusals.id, oldest)).run());
    },
  };
}
