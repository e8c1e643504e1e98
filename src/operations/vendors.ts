// What an operator reads about one vendor: its record (never its secrets) and its leads by status.
import { op, type Script } from "../db/script.ts";
import { LEAD_STATUSES, type LeadStatus } from "../db/schema.ts";
import type { Store, Tables } from "../store/index.ts";
import type { Vendor } from "../store/vendors/index.ts";

export interface VendorOverview {
  vendor: Vendor;
  /** Every status, 0 where the vendor has none. */
  leadsByStatus: Record<LeadStatus, number>;
}

function* overview(t: Tables, name: string): Script<VendorOverview | null> {
  const vendor = yield* op(t.vendors.findByName(name));
  if (!vendor) return null;
  const leadsByStatus = Object.fromEntries(LEAD_STATUSES.map((status) => [status, 0])) as Record<LeadStatus, number>;
  for (const { status, n } of yield* op(t.leads.countByStatus(vendor.id))) leadsByStatus[status] = n;
  return { vendor, leadsByStatus };
}

/** From one snapshot; null when there is no such vendor. */
export async function findVendorOverview(store: Store, name: string): Promise<VendorOverview | null> {
  return store.read((t) => overview(t, name));
}
