import { and, asc, between, desc, eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { auditLog } from "../../db/schema.ts";
import type { AuditTable } from "./index.ts";
import { auditSearch } from "./search.ts";

const entry = { at: auditLog.at, actor: auditLog.actor, action: auditLog.action, subject: auditLog.subject, detail: auditLog.detail };

export function sqliteAudit(db: Db): AuditTable {
  return {
    append: (row) => void db.insert(auditLog).values(row).run(),
    about: (subject, action, { from, until }) =>
      db
        .select(entry)
        .from(auditLog)
        .where(and(between(auditLog.at, from, until), eq(auditLog.subject, subject), eq(auditLog.action, action)))
        .orderBy(asc(auditLog.id))
        .all(),
    list: (limit) => db.select(entry).from(auditLog).orderBy(desc(auditLog.id)).limit(limit).all(),
    search: (filter) =>
      db
        .select({ id: auditLog.id, ...entry })
        .from(auditLog)
        .where(auditSearch(auditLog, filter))
        .orderBy(desc(auditLog.id))
        .limit(filter.limit)
        .all(),
  };
}
