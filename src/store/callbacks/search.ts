// The operator's callback listing (the Callbacks page, `callbacks list`) as conditions and an order
// on either database's callbacks table. Each status is read in the order of an index it already
// has, so a page is a walk of that index, not a sort, on any number of callbacks: dead ones by
// when they died (callbacks_dead), pending ones by their next attempt (callbacks_due), held and
// delivered ones newest lead first (the table's key, the lead's key; held ones are the newest).
// The lead's key is the tie-breaker, so "after this callback" (the next page) is a keyset.
import { and, asc, desc, eq, sql, type Column, type SQL } from "drizzle-orm";
import { leadKey, type CallbackStatus } from "../../db/schema.ts";
import { keyAt, ofVendorNamed } from "../leads/search.ts";
import type { CallbackSummary } from "./index.ts";

/** The columns the listing reads, from either database's schema. */
export interface CallbackColumns {
  leadKey: Column;
  status: Column;
  updatedAt: Column;
  nextAttemptAt: Column;
  vendorId: Column;
}

/** Where a page ended: the last callback's lead and its value of the order's column. */
export interface CallbackCursor {
  leadId: string;
  at: number | null;
}

export interface CallbackFilter {
  status?: CallbackStatus;
  vendorName?: string;
  /** The lead was received at or after this time (ms). */
  receivedFrom?: number;
  /** The lead was received before this time (ms). */
  receivedBefore?: number;
  /** Callbacks after this one in the listing's order. */
  after?: CallbackCursor;
  limit: number;
}

type OrderColumn = "updatedAt" | "nextAttemptAt" | null;

/** Per status, the column its index is ordered by (null: the key alone), and which way the listing reads it. */
const ORDERS: Record<CallbackStatus | "any", { column: OrderColumn; direction: "asc" | "desc" }> = {
  dead: { column: "updatedAt", direction: "desc" },
  pending: { column: "nextAttemptAt", direction: "asc" },
  held: { column: null, direction: "desc" },
  delivered: { column: null, direction: "desc" },
  // No status (`callbacks list` without one): most recently changed first, a sort of them all.
  any: { column: "updatedAt", direction: "desc" },
};

const orderOf = (filter: Pick<CallbackFilter, "status">) => ORDERS[filter.status ?? "any"];

/** The cursor after `callback` in the listing `filter` makes. */
export function cursorAfter(filter: Pick<CallbackFilter, "status">, callback: CallbackSummary): CallbackCursor {
  const { column } = orderOf(filter);
  return { leadId: callback.lead_id, at: column === "updatedAt" ? callback.updated_at : column === "nextAttemptAt" ? callback.next_attempt_at : null };
}

/** The WHERE and ORDER BY of a listing. */
export function callbackListing(c: CallbackColumns, filter: Omit<CallbackFilter, "limit">): { where: SQL | undefined; orderBy: SQL[] } {
  const { column, direction } = orderOf(filter);
  const by = direction === "asc" ? asc : desc;
  const orderBy = column ? [by(c[column]), by(c.leadKey)] : [by(c.leadKey)];
  // Unary +: where a status index gives the order, a range of lead keys must not draw SQLite to the
  // table's key instead, then sort every callback in the range (bench:console: bench/README.md).
  // A no-op on PostgreSQL.
  const received = column ? sql`+${c.leadKey}` : c.leadKey;
  return {
    where: and(
      filter.status ? eq(c.status, filter.status) : undefined,
      filter.vendorName ? ofVendorNamed(c.vendorId, filter.vendorName) : undefined,
      filter.receivedFrom !== undefined ? sql`${received} >= ${keyAt(filter.receivedFrom)}` : undefined,
      filter.receivedBefore !== undefined ? sql`${received} < ${keyAt(filter.receivedBefore)}` : undefined,
      filter.after ? afterCursor(c, column, direction, filter.after) : undefined,
    ),
    orderBy,
  };
}

function afterCursor(c: CallbackColumns, column: OrderColumn, direction: "asc" | "desc", cursor: CallbackCursor): SQL {
  const key = leadKey(cursor.leadId);
  const beyond = direction === "asc" ? sql`>` : sql`<`;
  if (!column || cursor.at === null) return sql`${c.leadKey} ${beyond} ${key}`;
  return sql`(${c[column]}, ${c.leadKey}) ${beyond} (${cursor.at}, ${key})`;
}
