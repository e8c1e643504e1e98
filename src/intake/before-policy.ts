// The steps of intake before the operator's policy (docs/contract.md §2, §5, §6): a key's earlier
// answer, the number's eligibility and a re-post's first answer; and the writes that store an
// admitted lead. Shared by real leads (service.ts) and test leads (test-lead.ts).
import { callbackMessageId } from "../callbacks/payload.ts";
import { op, type Script } from "../db/script.ts";
import type { Tables } from "../store/index.ts";
import type { NewLead } from "../store/leads/index.ts";
import type { IntakeDeps, LeadSubmission, SubmitOutcome } from "./deps.ts";
import type { ValidLead } from "./lead-schema.ts";
import { isSameLead } from "./validate.ts";

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;

/**
 * The eligibility rule both endpoints share (docs/contract.md §5): suppressed, or claimed by a lead accepted
 * within the duplicate window. postLead's atomic claim uses the same cutoff, so a prePing "yes"
 * means an immediate postLead will not get a 422.
 */
export function* isBlocked(t: Tables, phone: string, claimCutoff: number): Script<boolean> {
  return (yield* op(t.suppressions.isListed(phone))) || (yield* op(t.phoneClaims.isHeldSince(phone, claimCutoff)));
}

/** What the steps before the policy answer (a key's earlier answer, then the number's eligibility), or null when they let the lead through. */
export function* answerBeforePolicy(
  t: Tables,
  deps: IntakeDeps,
  submission: LeadSubmission,
  lead: ValidLead,
  requestHash: string,
): Script<SubmitOutcome | null> {
  const { vendorId, idempotencyKey: key } = submission;
  const now = deps.clock();
  if (key !== null) {
    const earlier = yield* answerOfKey(t, vendorId, key, requestHash, now);
    if (earlier) return earlier;
  }
  if (yield* isBlocked(t, lead.phoneE164, now - deps.duplicateWindowMs))
    // A test lead claims no number, so none is its own first post: it is only ever blocked.
    return key === null && !submission.test ? yield* repostOrBlocked(t, vendorId, lead, now) : { kind: "blocked" };
  return null;
}

/** The answer a key saved within its TTL gives: its lead again for the same request, a conflict for another. */
export function* answerOfKey(t: Tables, vendorId: string, key: string, requestHash: string, now: number): Script<SubmitOutcome | undefined> {
  const earlier = yield* op(t.idempotencyKeys.find(vendorId, key, now - IDEMPOTENCY_TTL_MS));
  if (!earlier) return undefined;
  return earlier.requestHash === requestHash ? { kind: "accepted", leadId: earlier.leadId, replayed: true } : { kind: "idempotencyConflict" };
}

/**
 * Without a key, the vendor that sent this very lead within the idempotency window is retrying
 * after a lost answer (docs/contract.md §6): it gets the first answer again. "This very lead" is the lead
 * as validated and stored (isSameLead), so a retry that respells it is recognised. The claim's lead
 * is answered whether it is pending or accepted, suppressed since or not, as a key's replay is; a
 * rejected lead no longer holds the claim, so a re-post of it became a new lead before this point.
 */
export function* repostOrBlocked(t: Tables, vendorId: string, lead: ValidLead, now: number): Script<SubmitOutcome> {
  // Runs only when a claim failed (inside the write), so accepting a lead never pays for it.
  const holder = yield* op(t.phoneClaims.holderOf(lead.phoneE164));
  const earlier = holder === null ? undefined : yield* op(t.leads.findRecent(holder, vendorId, now - IDEMPOTENCY_TTL_MS));
  return earlier && isSameLead(lead, earlier) ? { kind: "accepted", leadId: holder!, replayed: true } : { kind: "blocked" };
}

/** Stores an admitted lead (`row`), its held callback and its key's answer: the writes after the checks. */
export function* storeLead(t: Tables, submission: LeadSubmission, lead: ValidLead, row: NewLead, requestHash: string): Script<SubmitOutcome> {
  const { vendorId, idempotencyKey: key } = submission;
  const { id: leadId, createdAt: now } = row;
  yield* op(t.leads.insertPending(lead, row));
  // The callback row waits (`held`) until the final result is decided.
  if (lead.callBackUrl !== null) yield* op(t.callbacks.hold({ id: callbackMessageId(leadId), leadId, vendorId, url: lead.callBackUrl }, now));
  if (key !== null) yield* op(t.idempotencyKeys.save({ vendorId, key, requestHash, leadId }, now, now - IDEMPOTENCY_TTL_MS));
  return { kind: "accepted", leadId, replayed: false };
}
