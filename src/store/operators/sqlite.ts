import { eq } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { operators } from "../../db/schema.ts";
import type { OperatorsTable } from "./index.ts";

export function sqliteOperators(db: Db): OperatorsTable {
  return {
    findByName: (name) => db.select().from(operators).where(eq(operators.name, name)).get(),
    list: () => db.select().from(operators).orderBy(operators.name).all(),
    insert: (operator) => changedRows(db.insert(operators).values(operator).onConflictDoNothing().run()) === 1,
    setEnabled: (id, enabled, now) => void db.update(operators).set({ enabled, updatedAt: now }).where(eq(operators.id, id)).run(),
  };
}
