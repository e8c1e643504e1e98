import { asc, count, eq, lt } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { pausedEndpoints, vendors } from "../../db/schema.ts";
import { reopened, type PausedEndpointsTable } from "./index.ts";

export function sqlitePausedEndpoints(db: Db): PausedEndpointsTable {
  return {
    pause: (row) =>
      void db
        .insert(pausedEndpoints)
        .values(row)
        .onConflictDoUpdate({ target: pausedEndpoints.endpoint, set: reopened(row) })
        .run(),
    resume: (endpoint) => void db.delete(pausedEndpoints).where(eq(pausedEndpoints.endpoint, endpoint)).run(),
    list: () =>
      db
        .select({ ...columns, vendorName: vendors.name })
        .from(pausedEndpoints)
        .leftJoin(vendors, eq(vendors.id, pausedEndpoints.vendorId))
        .orderBy(asc(pausedEndpoints.pausedUntil), asc(pausedEndpoints.endpoint))
        .all(),
    count: () => db.select({ n: count() }).from(pausedEndpoints).get()!.n,
    purgeEndedBefore: (before) => changedRows(db.delete(pausedEndpoints).where(lt(pausedEndpoints.pausedUntil, before)).run()),
  };
}

const columns = {
  endpoint: pausedEndpoints.endpoint,
  vendorId: pausedEndpoints.vendorId,
  target: pausedEndpoints.target,
  failures: pausedEndpoints.failures,
  lastError: pausedEndpoints.lastError,
  pausedAt: pausedEndpoints.pausedAt,
  pausedUntil: pausedEndpoints.pausedUntil,
};
