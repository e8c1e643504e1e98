import { and, eq, gt, lt } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { portalSessions, vendors } from "../../db/pg/schema.ts";
import { changed, type PgOn } from "../pg-session.ts";
import type { PortalSessionsTable } from "./index.ts";

/** Portal sessions on PostgreSQL: one read per portal request; nothing prepared. */
export function pgPortalSessions(_db: PgDb): (on: PgOn) => PortalSessionsTable {
  return (on) => ({
    insert: async (session) => void (await on.insert(portalSessions).values(session)),
    live: async (tokenHash, now) =>
      (
        await on
          .select({ vendorId: vendors.id, vendorName: vendors.name, csrfToken: portalSessions.csrfToken, expiresAt: portalSessions.expiresAt })
          .from(portalSessions)
          .innerJoin(vendors, eq(vendors.id, portalSessions.vendorId))
          .where(and(eq(portalSessions.tokenHash, tokenHash), eq(portalSessions.kind, "session"), gt(portalSessions.expiresAt, now), eq(vendors.enabled, true)))
      )[0] ?? null,
    takeLink: async (tokenHash, now) =>
      (
        await on
          .delete(portalSessions)
          .where(and(eq(portalSessions.tokenHash, tokenHash), eq(portalSessions.kind, "link"), gt(portalSessions.expiresAt, now)))
          .returning({ vendorId: portalSessions.vendorId })
      )[0]?.vendorId ?? null,
    delete: async (tokenHash) => void (await on.delete(portalSessions).where(eq(portalSessions.tokenHash, tokenHash))),
    purgeExpired: async (now) => changed(await on.delete(portalSessions).where(lt(portalSessions.expiresAt, now))),
  });
}
