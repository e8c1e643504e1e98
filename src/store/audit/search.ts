// The audit log's filter as conditions on either database's audit_log table. Entries are listed
// newest first by id, and a page continues below the last id shown (a keyset: any depth costs the same).
import { and, eq, gte, lt, or, type Column, type SQL } from "drizzle-orm";
import type { AuditFilter } from "./index.ts";

export interface AuditColumns {
  id: Column;
  at: Column;
  actor: Column;
  action: Column;
}

/**
 * An action is matched exactly, or as a family by its first word: "vendor" is every "vendor.…".
 * A range, not LIKE, so nothing the operator types is a wildcard.
 */
const actionMatches = (column: Column, action: string): SQL =>
  action.includes(".") ? eq(column, action) : or(eq(column, action), and(gte(column, `${action}.`), lt(column, `${action}/`)))!;

/** An actor is matched exactly; a bare name ("olivia") is the operator or the OS user of that name. */
const actorMatches = (column: Column, actor: string): SQL =>
  actor.includes(":") ? eq(column, actor) : or(eq(column, `operator:${actor}`), eq(column, `cli:${actor}`))!;

export function auditSearch(c: AuditColumns, filter: Omit<AuditFilter, "limit">): SQL | undefined {
  return and(
    filter.actor ? actorMatches(c.actor, filter.actor) : undefined,
    filter.action ? actionMatches(c.action, filter.action) : undefined,
    filter.from !== undefined ? gte(c.at, filter.from) : undefined,
    filter.before !== undefined ? lt(c.at, filter.before) : undefined,
    filter.belowId !== undefined ? lt(c.id, filter.belowId) : undefined,
  );
}
