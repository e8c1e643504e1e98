// The refusal log's filter as conditions on either database's refusals table. Newest first by id;
// a page continues below the last id shown (a keyset: any depth costs the same).
import { and, eq, gte, lt, type Column, type SQL } from "drizzle-orm";
import { reasonNeedle, type RefusalFilter } from "./index.ts";

export interface RefusalColumns {
  id: Column;
  at: Column;
  vendorId: Column;
  reasons: Column;
}

/** `contains(column, needle)`: the dialect's substring test on the lower-cased column. */
export function refusalSearch(c: RefusalColumns, filter: Omit<RefusalFilter, "limit">, contains: (column: Column, needle: string) => SQL): SQL | undefined {
  return and(
    filter.vendorId ? eq(c.vendorId, filter.vendorId) : undefined,
    filter.reason ? contains(c.reasons, reasonNeedle(filter.reason)) : undefined,
    filter.from !== undefined ? gte(c.at, filter.from) : undefined,
    filter.before !== undefined ? lt(c.at, filter.before) : undefined,
    filter.belowId !== undefined ? lt(c.id, filter.belowId) : undefined,
  );
}
