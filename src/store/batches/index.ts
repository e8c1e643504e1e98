// The worker's set-based statements as the jobs see them, on either database: the decisions of a
// batch of due leads (their facts read by one statement, their outcomes written by one), and on
// PostgreSQL the attempts of a turn's deliveries. The statements live with their tables (leads/,
// callbacks/, phone-claims/) and are composed here per dialect (sqlite.ts, pg.ts); the rule that
// decides a lead is TypeScript's alone (final-results/decide.ts), never restated in SQL.
import type { AttemptRecord, DueCallback, NextStep } from "../callbacks/index.ts";
import type { FindingAtDecision } from "../findings/index.ts";
import type { DecisionFacts, DueLead } from "../leads/index.ts";

export type { DecisionFacts };

/** A lead's decision as the batch records it: its outcome, and the facts version it was made on. */
export interface DecisionRecord {
  lead: DueLead;
  /** DecisionFacts.version as read: the write falls out if the lead's facts changed since. */
  factsVersion: number;
  status: "accepted" | "rejected";
  /** The stored rejection_reason (contract/rejection-reasons.ts), null when accepted. */
  reason: string | null;
  /** The callback's body, released with the decision. */
  payload: string;
  /** A finding recorded with the decision unless the lead has one of its key (final-results/trustedform.ts findingAtDecision). */
  finding: FindingAtDecision | null;
}

export interface DecisionBatches {
  /**
   * Where one process decides (SQLite: one writer, one decision loop), the due leads read, oldest
   * first, with no lease written: `record` then fences each lead by its status alone, and a lead it
   * did not record stays pending, to be read again by the next pass. Without it the leads are leased
   * (LeadsTable.claimDue), and one not recorded is decided again alone, under its lease.
   */
  readDue?(now: number, limit: number): Promise<DueLead[]>;
  /**
   * Each lead's facts as they stand now (the per-lead path's checksNow, with their version); a lead
   * that is gone has none. With `withFields` (the policy in force has final rules), each also
   * carries what final rules read (DecisionFacts.stored), in the same statement.
   */
  checksOf(leads: DueLead[], withFields?: boolean): Promise<Map<string, DecisionFacts>>;
  /**
   * Records each decision if `token` still holds its lead (with readDue: it is still pending) and
   * its facts version is still the one read: one compared value, whatever the rule read. The lead,
   * its callback's release, (when rejected) its phone claim's drop and its finding at decision,
   * together. Answers those ids.
   */
  record(decisions: DecisionRecord[], token: string, now: number): Promise<Set<string>>;
}

/** Records an attempt and moves the callback on if `token` still holds it (CallbacksTable.recordAttempt, answered with a promise: PostgreSQL batches several into one statement); answers whether it did. */
export type RecordAttempt = (
  callback: Pick<DueCallback, "id" | "leadId">,
  token: string,
  attempt: AttemptRecord,
  next: NextStep,
  now: number,
) => Promise<boolean>;

/** The worker's batches (worker/index.ts hands them to its jobs); SQLite's group commit batches attempts already. */
export interface WorkerBatches {
  decisions: DecisionBatches;
  recordAttempt?: RecordAttempt;
}
