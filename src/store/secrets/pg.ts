import { eq } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { secrets } from "../../db/pg/schema.ts";
import type { PgOn } from "../pg-session.ts";
import type { SecretsTable } from "./index.ts";

export function pgSecrets(_db: PgDb): (on: PgOn) => SecretsTable {
  return (on) => ({
    get: async (name) => (await on.select({ value: secrets.value }).from(secrets).where(eq(secrets.name, name)))[0]?.value ?? null,
    addIfAbsent: async (name, value, now) => {
      await on.insert(secrets).values({ name, value, createdAt: now }).onConflictDoNothing();
    },
  });
}
