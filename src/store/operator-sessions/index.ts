// Console sessions: one row per signed-in browser, found by the hash of its cookie's token, valid
// until it expires, its operator is disabled, or it signs out.
import type { Op } from "../../db/script.ts";
import type { operatorSessions } from "../../db/schema.ts";

export type OperatorSession = typeof operatorSessions.$inferSelect;

/** A live session as a console request sees it: who, and the token its forms must carry. */
export interface SessionOperator {
  operatorId: string;
  operatorName: string;
  csrfToken: string;
  expiresAt: number;
}

export interface OperatorSessionsTable {
  insert(session: OperatorSession): Op<void>;
  /** The session of this token hash if it has not expired by `now` and its operator is enabled; else null. */
  live(tokenHash: string, now: number): Op<SessionOperator | null>;
  delete(tokenHash: string): Op<void>;
  /** Ends every session of an operator (when it is disabled). */
  deleteForOperator(operatorId: string): Op<void>;
  /** Forgets sessions that expired before `now`; answers how many. */
  purgeExpired(now: number): Op<number>;
}
