import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client.ts";
import { policy } from "../../db/schema.ts";
import { POLICY_ROW, type PolicyTable } from "./index.ts";

export function sqlitePolicy(db: Db): PolicyTable {
  const version = db.select({ version: policy.version }).from(policy).where(eq(policy.id, POLICY_ROW)).prepare();
  return {
    version: () => version.get()?.version ?? 0,
    current: () =>
      db
        .select({ version: policy.version, document: policy.document, updatedAt: policy.updatedAt, updatedBy: policy.updatedBy })
        .from(policy)
        .where(eq(policy.id, POLICY_ROW))
        .get() ?? null,
    replace: (document, now, actor) =>
      db
        .insert(policy)
        .values({ id: POLICY_ROW, version: 1, document, updatedAt: now, updatedBy: actor })
        .onConflictDoUpdate({ target: policy.id, set: { version: sql`${policy.version} + 1`, document, updatedAt: now, updatedBy: actor } })
        .returning({ version: policy.version })
        .get()!.version,
  };
}
