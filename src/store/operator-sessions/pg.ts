import { and, eq, gt, lt } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { operators, operatorSessions } from "../../db/pg/schema.ts";
import { changed, type PgOn } from "../pg-session.ts";
import type { OperatorSessionsTable } from "./index.ts";

/** Console sessions on PostgreSQL: one read per console request, a few operators; nothing prepared. */
export function pgOperatorSessions(_db: PgDb): (on: PgOn) => OperatorSessionsTable {
  return (on) => ({
    insert: async (session) => void (await on.insert(operatorSessions).values(session)),
    live: async (tokenHash, now) =>
      (
        await on
          .select({ operatorId: operators.id, operatorName: operators.name, csrfToken: operatorSessions.csrfToken, expiresAt: operatorSessions.expiresAt })
          .from(operatorSessions)
          .innerJoin(operators, eq(operators.id, operatorSessions.operatorId))
          .where(and(eq(operatorSessions.tokenHash, tokenHash), gt(operatorSessions.expiresAt, now), eq(operators.enabled, true)))
      )[0] ?? null,
    delete: async (tokenHash) => void (await on.delete(operatorSessions).where(eq(operatorSessions.tokenHash, tokenHash))),
    deleteForOperator: async (operatorId) => void (await on.delete(operatorSessions).where(eq(operatorSessions.operatorId, operatorId))),
    purgeExpired: async (now) => changed(await on.delete(operatorSessions).where(lt(operatorSessions.expiresAt, now))),
  });
}
