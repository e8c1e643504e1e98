// The portal's sessions and sign-in links: one row per signed-in browser or unused link, found by the
// hash of its token, valid until it expires, its vendor is disabled, or (a session) it signs out or
// (a link) it is used.
import type { Op } from "../../db/script.ts";
import type { portalSessions } from "../../db/schema.ts";

export type PortalSession = typeof portalSessions.$inferSelect;

/** A live session or link as the portal sees it: which vendor, and the token its forms must carry. */
export interface SessionVendor {
  vendorId: string;
  vendorName: string;
  csrfToken: string;
  expiresAt: number;
}

export interface PortalSessionsTable {
  insert(session: PortalSession): Op<void>;
  /** The session of this token hash if it has not expired by `now` and its vendor is enabled; else null. */
  live(tokenHash: string, now: number): Op<SessionVendor | null>;
  /** Deletes the link of this token hash and answers its vendor's id, if it was unused and has not expired; else null. Single use: of two takers one gets it. */
  takeLink(tokenHash: string, now: number): Op<string | null>;
  delete(tokenHash: string): Op<void>;
  /** Forgets sessions and links that expired before `now`; answers how many. */
  purgeExpired(now: number): Op<number>;
}
