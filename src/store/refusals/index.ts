// The refusal log (db/schema.ts refusals): every postLead answered 400 or 422, written in batches
// by refusals/log.ts, searched by the console, purged by the maintenance job.
import type { Op } from "../../db/script.ts";
import type { refusals } from "../../db/schema.ts";

export type Refusal = Omit<typeof refusals.$inferSelect, "id">;
/** A refusal with its id, which orders the log (newest first) and continues a page after it. */
export type ListedRefusal = typeof refusals.$inferSelect;

export interface RefusalFilter {
  vendorId?: string;
  /** A text the reasons contain, case-insensitively (ASCII letters on SQLite, whose lower() folds only those). */
  reason?: string;
  /** At or after (epoch ms). */
  from?: number;
  /** Before (epoch ms). */
  before?: number;
  /** Only refusals older than this id: the next page. */
  belowId?: number;
  limit: number;
}

export interface RefusalsTable {
  /** Appends the rows in one multi-row statement. */
  insert(rows: readonly Refusal[]): Op<void>;
  /** The refusals the filter selects, newest first. */
  search(filter: RefusalFilter): Op<ListedRefusal[]>;
  /** Policy refusals at or after `from`, counted per distinct refused_by text (few: combinations of the document's entries). */
  countsByRefusers(from: number): Op<{ refusedBy: string; count: number }[]>;
  /** Deletes at most `limit` refusals older than `cutoff`; answers how many it deleted. */
  purge(cutoff: number, limit: number): Op<number>;
}

/**
 * The reason filter's needle as it appears inside the stored JSON array: the text JSON-escaped as
 * JSON.stringify escaped the stored reasons, lower-cased as the column is. Matched with instr/strpos,
 * not LIKE, so nothing the operator types is a wildcard.
 */
export const reasonNeedle = (text: string): string => JSON.stringify(text.toLowerCase()).slice(1, -1);
