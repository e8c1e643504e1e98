// What crosses between intake's thread (thread-host.ts) and the checks' thread (thread.ts). Both
// ways in batches: every check request a turn of intake's event loop makes goes in one message, and
// every answer the thread has in a turn comes back in one, so a lead's share of a message is what
// intake's thread pays for a check instead of a socket write and read (docs/checks.md, "The checks'
// thread"). Requests and answers are flat arrays (a few numbers and strings each): cloning them
// costs less than an object per lead.
import type { GuardedCheck } from "./guard.ts";

/** A check as the thread knows it, sent once per policy version (and again to a restarted thread). */
export interface ThreadCheck extends GuardedCheck {
  id: number;
}

/** The values of one request in `batch.requests`: its id, its check's id, and the body as sent. */
export const REQUEST_FIELDS = 3;
/** The values of one answer in `answers.answers`: the request's id, outcome, reason or error, source. */
export const ANSWER_FIELDS = 4;

export type AnsweredOutcome = "pass" | "fail" | "error";
/** Where a thread's answer came from: a request, or the guard without one (paused, busy). */
export type AnsweredSource = "request" | "paused" | "busy";

export type ToThread =
  /** Once, first. */
  | { kind: "start"; allowPrivate: boolean; maxSlowPerCheck?: number }
  /**
   * Checks not yet sent, the signing secret when it changed, then `requests`: REQUEST_FIELDS values
   * per request (id, check id, body).
   */
  | { kind: "batch"; checks: ThreadCheck[]; secret: string | null; requests: (number | string)[] };

export type FromThread =
  | { kind: "started" }
  /** ANSWER_FIELDS values per answer: id, outcome, the reason (pass, fail) or error, source. */
  | { kind: "answers"; answers: (number | string)[] }
  | { kind: "log"; level: "info" | "warn"; event: string; fields: Record<string, unknown> };
