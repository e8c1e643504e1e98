import { and, eq, gt, lt } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { operators, operatorSessions } from "../../db/schema.ts";
import type { OperatorSessionsTable } from "./index.ts";

export function sqliteOperatorSessions(db: Db): OperatorSessionsTable {
  return {
    insert: (session) => void db.insert(operatorSessions).values(session).run(),
    live: (tokenHash, now) =>
      db
        .select({ operatorId: operators.id, operatorName: operators.name, csrfToken: operatorSessions.csrfToken, expiresAt: operatorSessions.expiresAt })
        .from(operatorSessions)
        .innerJoin(operators, eq(operators.id, operatorSessions.operatorId))
        .where(and(eq(operatorSessions.tokenHash, tokenHash), gt(operatorSessions.expiresAt, now), eq(operators.enabled, true)))
        .get() ?? null,
    delete: (tokenHash) => void db.delete(operatorSessions).where(eq(operatorSessions.tokenHash, tokenHash)).run(),
    deleteForOperator: (operatorId) => void db.delete(operatorSessions).where(eq(operatorSessions.operatorId, operatorId)).run(),
    purgeExpired: (now) => changedRows(db.delete(operatorSessions).where(lt(operatorSessions.expiresAt, now)).run()),
  };
}
