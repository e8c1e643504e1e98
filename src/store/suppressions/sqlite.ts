import { eq, sql } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { prepareRead } from "../../db/prepared.ts";
import { suppressions } from "../../db/schema.ts";
import type { SuppressionsTable } from "./index.ts";
import { inRange } from "./range.ts";

export function sqliteSuppressions(db: Db): SuppressionsTable {
  const listed = prepareRead<{ phone: string }, unknown>(
    db.$client,
    db
      .select({ one: sql`1` })
      .from(suppressions)
      .where(eq(suppressions.phoneE164, sql.placeholder("phone"))),
  );
  return {
    isListed: (phone) => listed.get({ phone }) !== null,
    add: (entry) => changedRows(db.insert(suppressions).values(entry).onConflictDoNothing().run()) === 1,
    remove: (phone) => changedRows(db.delete(suppressions).where(eq(suppressions.phoneE164, phone)).run()) === 1,
    find: (phone) => db.select().from(suppressions).where(eq(suppressions.phoneE164, phone)).get() ?? null,
    list: (limit) => {
      const all = db.select().from(suppressions).orderBy(suppressions.phoneE164);
      return (limit === undefined ? all : all.limit(limit)).all();
    },
    page: (range) => db.select().from(suppressions).where(inRange(suppressions.phoneE164, range)).orderBy(suppressions.phoneE164).limit(range.limit).all(),
  };
}
