// The suppression (do-not-contact) list, keyed by the E.164 number.
import type { Op } from "../../db/script.ts";

export interface Suppression {
  phoneE164: string;
  reason: string | null;
  createdAt: number;
}

export interface SuppressionsTable {
  isListed(phoneE164: string): Op<boolean>;
  /** Adds a number; true when it was not listed before. */
  add(entry: Suppression): Op<boolean>;
  /** Removes a number; true when it was listed. */
  remove(phoneE164: string): Op<boolean>;
  /** Every entry, by number. */
  list(): Op<Suppression[]>;
}
