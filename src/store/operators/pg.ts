import { eq } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { operators } from "../../db/pg/schema.ts";
import type { PgOn } from "../pg-session.ts";
import type { OperatorsTable } from "./index.ts";

/** The operators on PostgreSQL; rarely read (a login, a CLI command), so nothing is prepared. */
export function pgOperators(_db: PgDb): (on: PgOn) => OperatorsTable {
  return (on) => ({
    findByName: async (name) => (await on.select().from(operators).where(eq(operators.name, name)))[0],
    list: async () => await on.select().from(operators).orderBy(operators.name),
    insert: async (operator) => (await on.insert(operators).values(operator).onConflictDoNothing().returning({ id: operators.id })).length === 1,
    setEnabled: async (id, enabled, now) => void (await on.update(operators).set({ enabled, updatedAt: now }).where(eq(operators.id, id))),
  });
}
