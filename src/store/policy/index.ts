// The acceptance policy in force (db/schema.ts policy): one document per database and its version.
// Written by `rules import` (cli/rules.ts, through policy-in-force/), read every second by every
// instance's loader, which recompiles only when the version moved.
import type { Op } from "../../db/script.ts";
import type { policy } from "../../db/schema.ts";

export type StoredPolicy = Omit<typeof policy.$inferSelect, "id">;

/** The one row's key: a database holds one policy. */
export const POLICY_ROW = 1;

export interface PolicyTable {
  /** The version in force; 0 while no document was ever imported (the empty policy). */
  version(): Op<number>;
  /** The document in force with its version, or null while none was ever imported. */
  current(): Op<StoredPolicy | null>;
  /** Replaces the document in one statement, bumping the version; answers the new version. */
  replace(document: string, now: number, actor: string): Op<number>;
}
