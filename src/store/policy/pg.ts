import { eq, sql } from "drizzle-orm";
import type { PgDb } from "../../db/pg/client.ts";
import { policy } from "../../db/pg/schema.ts";
import type { PgOn } from "../pg-session.ts";
import { POLICY_ROW, type PolicyTable } from "./index.ts";

export function pgPolicy(_db: PgDb): (on: PgOn) => PolicyTable {
  return (on) => ({
    version: async () => (await on.select({ version: policy.version }).from(policy).where(eq(policy.id, POLICY_ROW)))[0]?.version ?? 0,
    current: async () =>
      (
        await on
          .select({ version: policy.version, document: policy.document, updatedAt: policy.updatedAt, updatedBy: policy.updatedBy })
          .from(policy)
          .where(eq(policy.id, POLICY_ROW))
      )[0] ?? null,
    // One statement: two imports at once each bump the version, the row lock orders them.
    replace: async (document, now, actor) =>
      (
        await on
          .insert(policy)
          .values({ id: POLICY_ROW, version: 1, document, updatedAt: now, updatedBy: actor })
          .onConflictDoUpdate({ target: policy.id, set: { version: sql`${policy.version} + 1`, document, updatedAt: now, updatedBy: actor } })
          .returning({ version: policy.version })
      )[0]!.version,
  });
}
