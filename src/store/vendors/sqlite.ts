import { and, eq, sql } from "drizzle-orm";
import { changedRows } from "../../db/changes.ts";
import type { Db } from "../../db/client.ts";
import { prepareRead } from "../../db/prepared.ts";
import { vendors } from "../../db/schema.ts";
import type { VendorsTable } from "./index.ts";

export function sqliteVendors(db: Db): VendorsTable {
  // Read on every turn of the event loop that authenticates a request: prepared on bun:sqlite,
  // unmapped (prepared.ts); the SQL row becomes the domain shape here.
  const credentials = prepareRead<{ name: string }, { id: string; name: string; password_hash: string; enabled: number }>(
    db.$client,
    db
      .select({ id: vendors.id, name: vendors.name, passwordHash: vendors.passwordHash, enabled: vendors.enabled })
      .from(vendors)
      .where(eq(vendors.name, sql.placeholder("name"))),
  );
  const update = (id: string, set: Partial<typeof vendors.$inferInsert>) => void db.update(vendors).set(set).where(eq(vendors.id, id)).run();
  return {
    findByName: (name) => db.select().from(vendors).where(eq(vendors.name, name)).get(),
    credentialsOf(name) {
      const row = credentials.get({ name });
      return row && { id: row.id, name: row.name, passwordHash: row.password_hash, enabled: row.enabled === 1 };
    },
    list: () => db.select().from(vendors).orderBy(vendors.name).all(),
    insert: (vendor) => changedRows(db.insert(vendors).values(vendor).onConflictDoNothing().run()) === 1,
    setEnabled: (id, enabled, now) => update(id, { enabled, updatedAt: now }),
    setPasswordHash: (id, passwordHash, now) => update(id, { passwordHash, updatedAt: now }),
    setSigningSecrets: (id, expected, secrets, now) =>
      changedRows(
        db
          .update(vendors)
          .set({ ...secrets, updatedAt: now })
          .where(and(eq(vendors.id, id), eq(vendors.signingSecret, expected)))
          .run(),
      ) === 1,
  };
}
