import { and, eq, gt, lt } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { portalSessions, vendors } from "../../db/schema.ts";
import type { PortalSessionsTable } from "./index.ts";

export function sqlitePortalSessions(db: Db): PortalSessionsTable {
  return {
    insert: (session) => void db.insert(portalSessions).values(session).run(),
    live: (tokenHash, now) =>
      db
        .select({ vendorId: vendors.id, vendorName: vendors.name, csrfToken: portalSessions.csrfToken, expiresAt: portalSessions.expiresAt })
        .from(portalSessions)
        .innerJoin(vendors, eq(vendors.id, portalSessions.vendorId))
        .where(and(eq(portalSessions.tokenHash, tokenHash), eq(portalSessions.kind, "session"), gt(portalSessions.expiresAt, now), eq(vendors.enabled, true)))
        .get() ?? null,
    takeLink: (tokenHash, now) =>
      db
        .delete(portalSessions)
        .where(and(eq(portalSessions.tokenHash, tokenHash), eq(portalSessions.kind, "link"), gt(portalSessions.expiresAt, now)))
        .returning({ vendorId: portalSessions.vendorId })
        .get()?.vendorId ?? null,
    delete: (tokenHash) => void db.delete(portalSessions).where(eq(portalSessions.tokenHash, tokenHash)).run(),
    purgeExpired: (now) => changedRows(db.delete(portalSessions).where(lt(portalSessions.expiresAt, now)).run()),
  };
}
