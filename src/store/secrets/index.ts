// The service's own secrets (db/schema.ts secrets), by name: generated once by whichever instance or
// command needs one first (checks/secret.ts), then read by all.
import type { Op } from "../../db/script.ts";

export interface SecretsTable {
  /** The secret of that name, or null while none was generated. */
  get(name: string): Op<string | null>;
  /** Stores `value` under `name` unless one is there already (another instance's, generated first): then nothing changes. */
  addIfAbsent(name: string, value: string, now: number): Op<void>;
}
