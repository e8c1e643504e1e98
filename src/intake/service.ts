// prePing and postLead as plain functions: validate → decide → persist. Routes call these; so do tests.
import { callbackMessageId } from "../callbacks/payload.ts";
import type { GroupCommitter } from "../db/group-commit.ts";
import { leadKey } from "../db/schema.ts";
import type { IntakeStore } from "./store.ts";
import { isSameLead, validateLead, validatePrePing, type ValidLead } from "./validate.ts";

export interface IntakeDeps {
  store: IntakeStore;
  commit: GroupCommitter;
  duplicateWindowMs: number;
  holdPeriodMs: number;
  /** config.allowPrivateCallbacks: may call_back_url name localhost or a private address? */
  allowPrivateCallbacks: boolean;
  clock: () => number;
}

export const IDEMPOTENCY_TTL_MS = 24 * 3_600_000;
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

export type PrePingOutcome = { kind: "invalid"; errors: string[] } | { kind: "blocked" } | { kind: "eligible" };

export type SubmitOutcome =
  | { kind: "invalid"; errors: string[] }
  | { kind: "blocked" }
  | { kind: "idempotencyConflict" }
  | { kind: "accepted"; leadId: string; replayed: boolean };

/**
 * The eligibility rule both endpoints share (CONTRACT §5): suppressed, or claimed by a lead accepted
 * within the duplicate window. postLead's atomic claim uses the same cutoff, so a prePing "yes"
 * means an immediate postLead will not get a 422.
 */
function isBlocked(deps: IntakeDeps, phone: string, now: number): boolean {
  return deps.store.isSuppressed(phone) || deps.store.hasClaimSince(phone, now - deps.duplicateWindowMs);
}

export function prePing(deps: IntakeDeps, body: Record<string, unknown>): PrePingOutcome {
  const validation = validatePrePing(body);
  if (!validation.ok) return { kind: "invalid", errors: validation.errors };
  return isBlocked(deps, validation.value.phoneE164, deps.clock()) ? { kind: "blocked" } : { kind: "eligible" };
}

export interface LeadSubmission {
  vendorId: string;
  body: Record<string, unknown>;
  /** The body as received, stored verbatim and hashed for Idempotency-Key. */
  rawBody: string;
  idempotencyKey: string | null;
}

/** Not async: an accepted lead's answer is the group commit's own promise, not one wrapped around it. */
export function submitLead(deps: IntakeDeps, submission: LeadSubmission): Promise<SubmitOutcome> {
  const validation = validateLead(submission.body, deps);
  const errors = validation.ok ? [] : [...validation.errors];
  const key = submission.idempotencyKey;
  if (key !== null && !IDEMPOTENCY_KEY.test(key)) errors.push("Invalid Idempotency-Key: must be 1-255 visible ASCII characters");
  if (!validation.ok || errors.length > 0) return Promise.resolve({ kind: "invalid", errors });
  const requestHash = key === null ? "" : Bun.SHA256.hash(submission.rawBody, "hex");
  // The checks and the writes run in one transaction: nothing can slip in between them.
  return deps.commit.run(() => persistLead(deps, submission, validation.value, requestHash));
}

function persistLead(deps: IntakeDeps, submission: LeadSubmission, lead: ValidLead, requestHash: string): SubmitOutcome {
  const { store } = deps;
  const { vendorId, idempotencyKey: key } = submission;
  const now = deps.clock();
  if (key !== null) {
    const earlier = store.findIdempotencyKey(vendorId, key, now - IDEMPOTENCY_TTL_MS);
    if (earlier) return earlier.requestHash === requestHash ? { kind: "accepted", leadId: earlier.leadId, replayed: true } : { kind: "idempotencyConflict" };
  }
  const leadId = Bun.randomUUIDv7();
  if (!store.claimPhone(lead.phoneE164, leadId, now, now - deps.duplicateWindowMs)) return key === null ? repostOrBlocked(store, vendorId, lead, now) : { kind: "blocked" };
  const idKey = leadKey(leadId);
  store.insertLead(newLeadRow(idKey, leadId, vendorId, lead, submission.rawBody, now, now + deps.holdPeriodMs));
  if (lead.callBackUrl !== null) store.insertCallback(heldCallbackRow(idKey, leadId, vendorId, lead.callBackUrl, now));
  if (key !== null) store.saveIdempotencyKey({ vendorId, key, requestHash, leadId, now });
  return { kind: "accepted", leadId, replayed: false };
}

/**
 * Without a key, the vendor that sent this very lead within the idempotency window is retrying
 * after a lost answer (CONTRACT §6): it gets the first answer again. "This very lead" is the lead
 * as validated and stored (isSameLead), so a retry that respells it is recognised. The claim's lead
 * is answered whether it is pending or accepted, suppressed since or not, as a key's replay is; a
 * rejected lead no longer holds the claim, so a re-post of it became a new lead before this point.
 */
function repostOrBlocked(store: IntakeStore, vendorId: string, lead: ValidLead, now: number): SubmitOutcome {
  const earlier = store.claimingLeadOf(lead.phoneE164, vendorId, now - IDEMPOTENCY_TTL_MS);
  return earlier && isSameLead(lead, earlier) ? { kind: "accepted", leadId: earlier.id, replayed: true } : { kind: "blocked" };
}

function newLeadRow(idKey: bigint, id: string, vendorId: string, lead: ValidLead, rawRequest: string, now: number, decideAfter: number) {
  return {
    ...lead,
    idKey,
    id,
    vendorId,
    rawRequest,
    status: "pending" as const,
    createdAt: now,
    decideAfter,
    decidedAt: null,
    rejectionReason: null,
    operatorDecision: null,
    operatorReason: null,
    lockedUntil: null,
    claimToken: null,
  };
}

/** The callback row waits (`held`) until the final result is decided. */
function heldCallbackRow(key: bigint, leadId: string, vendorId: string, url: string, now: number) {
  return {
    id: callbackMessageId(leadId),
    leadKey: key,
    leadId,
    vendorId,
    url,
    status: "held" as const,
    payload: null,
    attemptCount: 0,
    nextAttemptAt: null,
    lockedUntil: null,
    claimToken: null,
    lastError: null,
    createdAt: now,
    updatedAt: now,
    deliveredAt: null,
  };
}
