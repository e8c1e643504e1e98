import { eq, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { suppressions } from "../../db/pg/schema.ts";
import { sessionOf, type PgOn } from "../pg-session.ts";
import type { SuppressionsTable } from "./index.ts";
import { inRange } from "./range.ts";

/** The suppression list on PostgreSQL: statements prepared once on `db`, run where each script runs. */
export function pgSuppressions(db: PgDb): (on: PgOn) => SuppressionsTable {
  const listed = db
    .select({ one: sql`1` })
    .from(suppressions)
    .where(eq(suppressions.phoneE164, sql.placeholder("phone")))
    .prepare("suppressions_listed");
  return (on) => {
    const at = sessionOf(db, on);
    return {
      isListed: async (phone) => (await at(listed).execute({ phone })).length > 0,
      add: async (entry) => (await on.insert(suppressions).values(entry).onConflictDoNothing().returning({ phone: suppressions.phoneE164 })).length === 1,
      remove: async (phone) =>
        (await on.delete(suppressions).where(eq(suppressions.phoneE164, phone)).returning({ phone: suppressions.phoneE164 })).length === 1,
      find: async (phone) => (await on.select().from(suppressions).where(eq(suppressions.phoneE164, phone)))[0] ?? null,
      list: (limit) => {
        const all = on.select().from(suppressions).orderBy(suppressions.phoneE164);
        return limit === undefined ? all : all.limit(limit);
      },
      page: async (range) =>
        await on.select().from(suppressions).where(inRange(suppressions.phoneE164, range)).orderBy(suppressions.phoneE164).limit(range.limit),
    };
  };
}
