// What intake asks of the operator's acceptance policy (docs/contract.md §10). The policy (policy/)
// reads intake's lead schema, so intake names here only what it calls; policy-in-force/ answers it
// with the policy in force at the moment of the call.
import type { CapCounter } from "../store/cap-usage/index.ts";
import type { ValidLead } from "./lead-schema.ts";

/** A cap a request counts against, in its current window (the policy's CapSlot has these fields). */
export interface CapToTake extends CapCounter {
  /** The refusal's text when the cap is full. */
  reason: string;
  /** Seconds until the window ends, at least 1. */
  retryAfterSeconds: number;
}

/**
 * The policy's answer before the database counts: refused (a closed schedule's reason, or every
 * failing intake rule's in document order), or nothing refused yet and the caps to count: `leads`
 * caps (postLead takes a slot of each; prePing refuses when one is full) and `pings` caps (prePing
 * takes a slot of each).
 */
export type PolicyAnswer = { kind: "refused"; reasons: readonly string[] } | { kind: "caps"; leads: readonly CapToTake[]; pings: readonly CapToTake[] };

export interface IntakePolicy {
  /** postLead's answer, or null when the policy neither refuses nor counts the lead. */
  postLead(vendor: string, lead: ValidLead, at: number): PolicyAnswer | null;
  /** prePing's: a closed schedule, the failing intake rules prePing can judge (phone, vendor, campaign, time), the caps. */
  prePing(vendor: string, ping: ValidPing, at: number): PolicyAnswer | null;
  /** Which entries refused a lead postLead's policy answer refused (asked only then): the refusal log's and the metrics' names. */
  postLeadRefusers?(vendor: string, lead: ValidLead, at: number): readonly RefusedBy[];
  /**
   * The lead's intake checks (docs/contract.md §11), to run once the policy above and the number's
   * eligibility let it through: null when none is in scope, so such a lead makes no promise for them.
   */
  postLeadChecks?(vendor: string, lead: ValidLead): (() => Promise<ChecksAnswer>) | null;
}

/**
 * What each check answered a lead, by the check's name: outcome `pass`, `fail` or `error`, and the
 * reason (an error's is `Check unavailable: <name>`): facts for final rules (check.<name>.outcome, .reason).
 */
export type CheckAnswers = Readonly<Record<string, Readonly<Record<"outcome" | "reason", string>>>>;

/**
 * A lead's intake checks, judged: refused (each fail's reason, and each error's whose on_error
 * rejects, in the document's order), or passed, with every check's answer.
 */
export type ChecksAnswer = { kind: "passed"; answers: CheckAnswers } | { kind: "refused"; reasons: readonly string[]; refusedBy: readonly RefusedBy[] };

/** A prePing's validated fields: the phone in E.164 and the campaign, null when not sent. */
export interface ValidPing {
  phoneE164: string;
  vendorCampaignName: string | null;
}

/** An entry of the operator's document that refused a request; `name` is the entry's own (bounded by the document). */
export interface RefusedBy {
  kind: "rule" | "schedule" | "cap" | "check";
  name: string;
}
