// The operator's lead search as conditions on either database's leads table. A phone number and a
// campaign each have an index (leads_phone, on the number as an integer, and leads_campaign; their
// intake cost is in schema.ts); every other filter narrows the scan of the leads' own key (id_key,
// the rowid on SQLite): a lead's key is its UUIDv7's first 64 bits, its creation millisecond then
// 16 bits of version and counter, so an id prefix and a date range are ranges of keys, and "older
// than this lead" (the next page) is one more bound.
import { and, eq, gte, like, lt, lte, sql, type Column, type SQL } from "drizzle-orm";
import { leadKey, phoneClaimKey } from "../../db/schema.ts";
import type { LeadFilter } from "./index.ts";

/** The columns the search reads, from either database's schema. */
export interface SearchColumns {
  idKey: Column;
  id: Column;
  status: Column;
  /** The number as its index keys it (phoneKeyOf in either schema). */
  phoneKey: SQL;
  vendorCampaignName: Column;
  createdAt: Column;
  vendorId: Column;
  test: Column;
}

/**
 * The distinct campaign names, in order, at most `limit`: a walk of leads_campaign that seeks the
 * next name past the last one (a loose index scan), so it costs one index seek per name, not a read
 * of every lead. The console matches what an operator typed against these (campaignsMatching).
 */
export const campaignNamesQuery = (limit: number): SQL => sql`WITH RECURSIVE names(name, n) AS (
  SELECT (SELECT vendor_campaign_name FROM leads ORDER BY vendor_campaign_name LIMIT 1), 1
  UNION ALL
  SELECT (SELECT vendor_campaign_name FROM leads WHERE vendor_campaign_name > names.name ORDER BY vendor_campaign_name LIMIT 1), n + 1
  FROM names WHERE names.name IS NOT NULL AND n < ${limit}
) SELECT name FROM names WHERE name IS NOT NULL`;

/**
 * `vendorId` is the id of the vendor named `name`: a subquery, so the planner compares with one
 * vendor's id and walks that vendor's index (leads_vendor_key, callbacks_vendor_delivered) in key
 * order. Joined on the name instead, PostgreSQL walked every row newest first for the vendor's
 * (100 ms on 120,000 leads for a vendor with 200: bench/README.md). The same text on both databases.
 */
export const ofVendorNamed = (vendorId: Column | SQL, name: string): SQL => sql`${vendorId} = (SELECT id FROM vendors WHERE name = ${name})`;

/** A lead's creation time and its id's time may differ by the moments between two clock reads. */
const CLOCK_SLACK_MS = 1_000;

/** The smallest key of a lead created at `ms` (the key's low 16 bits are version and counter). */
export const keyAt = (ms: number): bigint => BigInt(Math.max(0, ms)) << 16n;

/**
 * A lead-id prefix as typed (any case, dashes anywhere or none) → its canonical form and the range
 * of keys of the ids that start with it; null when it is not hexadecimal digits (at most 32).
 */
export function idPrefixRange(prefix: string): { canonical: string; low: bigint; high: bigint } | null {
  const hex = prefix.trim().toLowerCase().replaceAll("-", "");
  if (!/^[0-9a-f]{1,32}$/.test(hex)) return null;
  const canonical = [hex.slice(0, 8), hex.slice(8, 12), hex.slice(12, 16), hex.slice(16, 20), hex.slice(20)].filter((part) => part !== "").join("-");
  const head = hex.slice(0, 16);
  const key = (padding: string) => BigInt.asIntN(64, BigInt(`0x${head.padEnd(16, padding)}`));
  return { canonical, low: key("0"), high: key("f") };
}

/**
 * `unindexed` wraps a column whose index must not drive the plan (SQLite: unary +): a status
 * matches most leads, and walking its index means sorting all of them by key before the first
 * page (seconds against milliseconds on a million leads: bench/README.md, "Behind the code"); a
 * rare value scans newest first instead. A vendor needs no such care: leads_vendor_key is in key order.
 */
export function leadSearch(
  c: SearchColumns,
  filter: Omit<LeadFilter, "limit">,
  unindexed: (column: Column) => SQL = (column) => sql`${column}`,
): SQL | undefined {
  const prefix = filter.idPrefix === undefined ? undefined : idPrefixRange(filter.idPrefix);
  if (prefix === null) return sql`1 = 0`;
  // Conditions only when given, so the planner can use leads_vendor_key for a vendor.
  return and(
    filter.status ? eq(unindexed(c.status), filter.status) : undefined,
    // A phone or a campaign names a narrower index (leads_phone, leads_campaign) than the vendor's.
    filter.vendorName ? ofVendorNamed(filter.phoneE164 || filter.campaign ? unindexed(c.vendorId) : c.vendorId, filter.vendorName) : undefined,
    filter.phoneE164 ? sql`${c.phoneKey} = ${phoneClaimKey(filter.phoneE164)}` : undefined,
    filter.campaign ? eq(c.vendorCampaignName, filter.campaign) : undefined,
    // TRUE and FALSE are keywords on both databases (SQLite stores them as 1 and 0).
    filter.test !== undefined ? sql`${unindexed(c.test)} = ${sql.raw(String(filter.test))}` : undefined,
    prefix ? and(gte(c.idKey, prefix.low), lte(c.idKey, prefix.high), like(c.id, `${prefix.canonical}%`)) : undefined,
    filter.createdFrom !== undefined ? and(gte(c.idKey, keyAt(filter.createdFrom - CLOCK_SLACK_MS)), gte(c.createdAt, filter.createdFrom)) : undefined,
    filter.createdBefore !== undefined ? and(lt(c.idKey, keyAt(filter.createdBefore + CLOCK_SLACK_MS)), lt(c.createdAt, filter.createdBefore)) : undefined,
    filter.olderThan !== undefined ? lt(c.idKey, leadKey(filter.olderThan)) : undefined,
  );
}
