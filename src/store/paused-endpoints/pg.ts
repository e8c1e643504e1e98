import { asc, count, eq, lt } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { pausedEndpoints, vendors } from "../../db/pg/schema.ts";
import { changed, type PgOn } from "../pg-session.ts";
import { reopened, type PausedEndpointsTable } from "./index.ts";

export function pgPausedEndpoints(_db: PgDb): (on: PgOn) => PausedEndpointsTable {
  return (on) => ({
    async pause(row) {
      await on
        .insert(pausedEndpoints)
        .values(row)
        .onConflictDoUpdate({ target: pausedEndpoints.endpoint, set: reopened(row) });
    },
    async resume(endpoint) {
      await on.delete(pausedEndpoints).where(eq(pausedEndpoints.endpoint, endpoint));
    },
    list: async () =>
      await on
        .select({
          endpoint: pausedEndpoints.endpoint,
          vendorId: pausedEndpoints.vendorId,
          target: pausedEndpoints.target,
          failures: pausedEndpoints.failures,
          lastError: pausedEndpoints.lastError,
          pausedAt: pausedEndpoints.pausedAt,
          pausedUntil: pausedEndpoints.pausedUntil,
          vendorName: vendors.name,
        })
        .from(pausedEndpoints)
        .leftJoin(vendors, eq(vendors.id, pausedEndpoints.vendorId))
        .orderBy(asc(pausedEndpoints.pausedUntil), asc(pausedEndpoints.endpoint)),
    count: async () => (await on.select({ n: count() }).from(pausedEndpoints))[0]!.n,
    purgeEndedBefore: async (before) => changed(await on.delete(pausedEndpoints).where(lt(pausedEndpoints.pausedUntil, before))),
  });
}
