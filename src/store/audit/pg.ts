import { and, asc, between, desc, eq } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { auditLog } from "../../db/pg/schema.ts";
import type { PgOn } from "../pg-session.ts";
import type { AuditTable } from "./index.ts";
import { auditSearch } from "./search.ts";

const entry = { at: auditLog.at, actor: auditLog.actor, action: auditLog.action, subject: auditLog.subject, detail: auditLog.detail };

export function pgAudit(_db: PgDb): (on: PgOn) => AuditTable {
  return (on) => ({
    append: async (row) => void (await on.insert(auditLog).values(row)),
    about: async (subject, action, { from, until }) =>
      await on
        .select(entry)
        .from(auditLog)
        .where(and(between(auditLog.at, from, until), eq(auditLog.subject, subject), eq(auditLog.action, action)))
        .orderBy(asc(auditLog.id)),
    list: async (limit) => await on.select(entry).from(auditLog).orderBy(desc(auditLog.id)).limit(limit),
    search: async (filter) =>
      await on
        .select({ id: auditLog.id, ...entry })
        .from(auditLog)
        .where(auditSearch(auditLog, filter))
        .orderBy(desc(auditLog.id))
        .limit(filter.limit),
  });
}
