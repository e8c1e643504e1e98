// The pre-aggregated counts behind the console's charts (db/schema.ts outcomeCounts): added to by
// each instance's tally (stats/tally.ts), read a resolution's buckets at a time, pruned by age.
import type { Op } from "../../db/script.ts";
import type { outcomeCounts } from "../../db/schema.ts";

export type OutcomeCount = typeof outcomeCounts.$inferSelect;

export interface OutcomeCountsTable {
  /** Adds each row's count and total to its bucket's (creating it): instances sharing a database add up. */
  add(rows: OutcomeCount[]): Op<void>;
  /** The buckets of one resolution from `since` on, oldest first. */
  since(bucketMs: number, since: number): Op<OutcomeCount[]>;
  /** Drops the buckets of one resolution that start before `before`. */
  prune(bucketMs: number, before: number): Op<void>;
}
