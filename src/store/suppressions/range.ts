// A page of the suppression list as bounds on its key (phone_e164): a range of the primary key's
// index on either database, so any page, and any run of numbers, costs the same on a large list.
import { and, gt, gte, lt, type Column, type SQL } from "drizzle-orm";
import type { SuppressionRange } from "./index.ts";

export const inRange = (column: Column, range: SuppressionRange): SQL | undefined =>
  and(
    range.from !== undefined ? gte(column, range.from) : undefined,
    range.before !== undefined ? lt(column, range.before) : undefined,
    range.after !== undefined ? gt(column, range.after) : undefined,
  );
