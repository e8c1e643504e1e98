import { eq } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { secrets } from "../../db/schema.ts";
import type { SecretsTable } from "./index.ts";

export function sqliteSecrets(db: Db): SecretsTable {
  return {
    get: (name) => db.select({ value: secrets.value }).from(secrets).where(eq(secrets.name, name)).get()?.value ?? null,
    addIfAbsent: (name, value, now) => void db.insert(secrets).values({ name, value, createdAt: now }).onConflictDoNothing().run(),
  };
}
