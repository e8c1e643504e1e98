// The suppression (do-not-contact) list, keyed by the E.164 number.
import type { Op } from "../../db/script.ts";
import type { AuditEntry } from "../audit/index.ts";

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
  /** One number's entry, or null when it is not listed. */
  find(phoneE164: string): Op<Suppression | null>;
  /** The first `limit` entries by number (all without a limit). */
  list(limit?: number): Op<Suppression[]>;
  /** A page of the list by number: the numbers in [from, before) after `after`, at most `limit` (the primary key's order). */
  page(range: SuppressionRange): Op<Suppression[]>;
}

/** Which numbers a page of the list holds; every bound is an E.164 text compared as the key orders it. */
export interface SuppressionRange {
  from?: string;
  before?: string;
  /** The last number of the previous page. */
  after?: string;
  limit: number;
}

/** A row of an import file, checked. */
export interface StagedSuppression {
  line: number;
  e164: string;
  reason: string | null;
}

/** A bulk import: all its rows are staged first, then added to the list in one write, or none are. */
export interface SuppressionImport {
  stage(rows: StagedSuppression[]): Op<void>;
  /**
   * Adds the staged numbers not yet listed (a number staged twice keeps its first reason) and the
   * import's audit entry, made from that count, in one transaction; answers how many were added.
   */
  copyIntoList(now: number, auditOf: (added: number) => AuditEntry): Op<number>;
  /** Forgets the staged rows. */
  drop(): Op<void>;
}
