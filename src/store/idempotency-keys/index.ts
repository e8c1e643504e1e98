// Idempotency keys (docs/contract.md §6): a vendor's key, the hash of the request it came with, and the
// lead that request created. Kept for a day, then purged by the worker in small chunks.
import type { Op } from "../../db/script.ts";

export type IdempotencyKey = {
  vendorId: string;
  key: string;
  requestHash: string;
  leadId: string;
};

export interface IdempotencyKeysTable {
  /** The key's request hash and lead, if it was saved after `cutoff`. */
  find(vendorId: string, key: string, cutoff: number): Op<{ requestHash: string; leadId: string } | undefined>;
  /**
   * Saves a key, replacing one saved at or before `expiredBy`. One saved since was saved by a
   * concurrent request after this script looked the key up: the save throws WriteConflict.
   */
  save(key: IdempotencyKey, now: number, expiredBy: number): Op<void>;
  /** Forgets up to `limit` keys older than `cutoff`; answers how many went. */
  purge(cutoff: number, limit: number): Op<number>;
}
