// What intake's service (service.ts) works with and answers: its dependencies, the outcomes of
// prePing and postLead, and a lead ready to be stored as PostgreSQL's batches take it. Apart from
// service.ts to keep each file short; service.ts exports them again.
import type { BeforePolicyFacts } from "../store/batches/pg-intake.ts";
import type { Answering, Store, TableScript } from "../store/index.ts";
import type { NewLead } from "../store/leads/index.ts";
import type { Capped, FullCountersSeen } from "./caps.ts";
import type { ValidLead } from "./lead-schema.ts";
import type { CapToTake, IntakePolicy, RefusedBy } from "./policy-port.ts";

export interface IntakeDeps {
  /** The service's store: SQLite's answers reads at once, PostgreSQL's with promises. */
  store: Store<Answering, "promise">;
  duplicateWindowMs: number;
  holdPeriodMs: number;
  /** A test lead's hold (docs/contract.md §12 "Test mode"): short, so a vendor sees its callback soon. */
  testHoldPeriodMs: number;
  /** config.allowPrivateCallbacks: may call_back_url name localhost or a private address? */
  allowPrivateCallbacks: boolean;
  clock: () => number;
  /** PostgreSQL's: the requests of a turn go to the database together (backend/pg-intake.ts). Without it each is a script of its own. */
  batches?: IntakeBatches;
  /** The operator's acceptance policy in force (docs/contract.md §10); without it nothing more is refused. */
  policy?: IntakePolicy;
  /** The cap counters this process saw full (caps.ts): leads in their scope are refused by a read, before any write. */
  fullCounters?: FullCountersSeen;
}

export interface LeadSubmission {
  vendorId: string;
  body: Record<string, unknown>;
  /** The body as received, stored verbatim and hashed for Idempotency-Key. */
  rawBody: string;
  idempotencyKey: string | null;
  /** The authenticated vendor's name, which the policy's entries name ("" names no vendor). */
  vendorName?: string;
  /** A test lead (docs/contract.md §12 "Test mode", test-lead.ts); absent: a real one. */
  test?: boolean;
}

/**
 * A lead ready to be stored, for a batch: its rows, and the script that answers it alone. What its
 * intake checks answered (docs/contract.md §11) is in `lead.checkAnswers`, stored with it.
 */
export interface LeadToAccept {
  fields: ValidLead;
  lead: NewLead;
  /** Its callback's message id, when the lead has a call_back_url. */
  callbackId: string | null;
  key: { key: string; requestHash: string } | null;
  /** The caps it takes a slot of (the batch takes them together; the per-lead script takes its own). */
  caps: readonly CapToTake[];
  /** The per-lead script (acceptLead): the batch's answer for a lead it cannot settle itself. */
  alone: TableScript<SubmitOutcome>;
}

/** Answers as the per-request scripts would, for several requests in one statement. */
export interface IntakeBatches {
  /** postLead: the lead's answer, exactly its per-lead script's (acceptLead). */
  accept(lead: LeadToAccept): Promise<SubmitOutcome>;
  /** prePing: service.ts isBlocked, for a turn's prePings together. */
  isBlocked(phoneE164: string, claimCutoff: number): Promise<boolean>;
  /**
   * postLead with intake checks: may a step before the policy answer it (its number blocked, or
   * `key` live)? A turn's leads are screened together; false lets the lead on to its checks with
   * no read of its own, true sends it to before-policy.ts answerBeforePolicy for its exact answer.
   */
  mayAnswerBeforePolicy(lead: BeforePolicyFacts): Promise<boolean>;
  /** prePing: the slots taken of each of its `leads` caps' counters (caps.ts fullAmong's read). */
  usedOf(counters: readonly CapToTake[]): Promise<number[]>;
  /** prePing: takes a slot of each of its `pings` caps, with the turn's others; false: none taken, take them alone. */
  countPings(counters: readonly CapToTake[]): Promise<boolean>;
}

/** `refused`: by the acceptance policy, with its reasons; `capped`: by its full caps (docs/contract.md §10). */
export type PrePingOutcome =
  | { kind: "invalid"; errors: string[] }
  | { kind: "blocked" }
  | { kind: "refused"; reasons: readonly string[] }
  | Capped
  | { kind: "eligible" };

export type SubmitOutcome =
  | { kind: "invalid"; errors: string[] }
  | { kind: "blocked" }
  | { kind: "idempotencyConflict" }
  | { kind: "refused"; reasons: readonly string[]; refusedBy?: readonly RefusedBy[] }
  | Capped
  | { kind: "accepted"; leadId: string; replayed: boolean };
