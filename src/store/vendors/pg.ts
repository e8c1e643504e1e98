import { and, eq, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { vendors } from "../../db/pg/schema.ts";
import { sessionOf, type PgOn } from "../pg-session.ts";
import type { VendorsTable } from "./index.ts";

/** The vendors on PostgreSQL: statements prepared once on `db`, run where each script runs. */
export function pgVendors(db: PgDb): (on: PgOn) => VendorsTable {
  const credentials = db
    .select({ id: vendors.id, name: vendors.name, passwordHash: vendors.passwordHash, enabled: vendors.enabled })
    .from(vendors)
    .where(eq(vendors.name, sql.placeholder("name")))
    .prepare("vendors_credentials");
  return (on) => {
    const at = sessionOf(db, on);
    const update = async (id: string, set: Partial<typeof vendors.$inferInsert>) => void (await on.update(vendors).set(set).where(eq(vendors.id, id)));
    return {
      findByName: async (name) => (await on.select().from(vendors).where(eq(vendors.name, name)))[0],
      credentialsOf: async (name) => (await at(credentials).execute({ name }))[0] ?? null,
      // Awaited: a query builder is a thenable, not a Promise, and a script (db/script.ts op) waits only for a Promise.
      list: async () => await on.select().from(vendors).orderBy(vendors.name),
      // The name's UNIQUE index decides between instances adding one name at once.
      insert: async (vendor) => (await on.insert(vendors).values(vendor).onConflictDoNothing().returning({ id: vendors.id })).length === 1,
      setEnabled: (id, enabled, now) => update(id, { enabled, updatedAt: now }),
      setPasswordHash: (id, passwordHash, now) => update(id, { passwordHash, updatedAt: now }),
      setSigningSecrets: async (id, expected, secrets, now) =>
        (
          await on
            .update(vendors)
            .set({ ...secrets, updatedAt: now })
            .where(and(eq(vendors.id, id), eq(vendors.signingSecret, expected)))
            .returning({ id: vendors.id })
        ).length === 1,
    };
  };
}
