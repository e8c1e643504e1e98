// prePing and postLead as plain functions: validate → decide → persist. Routes call these; so do tests.
import { callbackMessageId } from "../callbacks/payload.ts";
import { FIELD_TEXTS } from "../contract/texts.ts";
import { answerBeforePolicy, answerOfKey, IDEMPOTENCY_TTL_MS, isBlocked, repostOrBlocked, storeLead } from "./before-policy.ts";
import { op, type Script } from "../db/script.ts";
import type { Tables, TableScript } from "../store/index.ts";
import { answeringCaps, type Capped, cappedAmong, fullCaps, pingCaps, takeCaps } from "./caps.ts";
import type { ValidLead } from "./lead-schema.ts";
import type { CapToTake, ChecksAnswer, RefusedBy } from "./policy-port.ts";
import type { IntakeDeps, LeadSubmission, LeadToAccept, PrePingOutcome, SubmitOutcome } from "./deps.ts";
import { requestHashOf, writeTestLead } from "./test-lead.ts";
import { validateLead, validatePrePing } from "./validate.ts";

export type { IntakeBatches, IntakeDeps, LeadSubmission, LeadToAccept, PrePingOutcome, SubmitOutcome } from "./deps.ts";
export { IDEMPOTENCY_TTL_MS } from "./before-policy.ts";

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/**
 * At once on SQLite (its reads answer synchronously: the hot path makes no promise), a promise on
 * PostgreSQL. `vendorName` is the authenticated vendor's, which the policy's entries name. A `test`
 * prePing (docs/contract.md §12) gets the same answer but takes no `pings` slot: its caps are read.
 */
export function prePing(deps: IntakeDeps, body: Record<string, unknown>, vendorName = "", test = false): PrePingOutcome | Promise<PrePingOutcome> {
  const validation = validatePrePing(body);
  if (!validation.ok) return { kind: "invalid", errors: validation.errors };
  const now = deps.clock();
  const claimCutoff = now - deps.duplicateWindowMs;
  const ping = validation.value;
  const phone = ping.phoneE164;
  // The policy's answer is pure: decided now, told only after eligibility (docs/contract.md §2: a
  // blocked number gets §5's answer whatever the policy says).
  const answer = deps.policy?.prePing(vendorName, ping, now) ?? null;
  const blocked = deps.batches ? deps.batches.isBlocked(phone, claimCutoff) : deps.store.read((t) => isBlocked(t, phone, claimCutoff));
  // Caps last: a read of the `leads` caps, then a slot of each `pings` cap. PostgreSQL reads the
  // counters beside the eligibility, in the same turn (one round trip, not two), and takes the
  // turn's `pings` slots in one statement, or each prePing alone when a counter is short.
  const counted = (capped: Capped | null): PrePingOutcome => capped ?? { kind: "eligible" };
  if (deps.batches && answer?.kind === "caps" && !test) {
    const { batches } = deps;
    const { leads, pings } = answer;
    const countPings = (): Promise<PrePingOutcome> =>
      batches.countPings(pings).then((done) => (done ? counted(null) : answeringCaps(deps.store.write((t) => pingCaps(t, NO_CAPS, pings))).then(counted)));
    return Promise.all([blocked, leads.length > 0 ? batches.usedOf(leads) : NO_USE]).then(([blocked, used]): PrePingOutcome | Promise<PrePingOutcome> => {
      if (blocked) return { kind: "blocked" };
      const capped = cappedAmong(leads, used);
      return capped ?? (pings.length > 0 ? countPings() : counted(null));
    });
  }
  const eligibility = (blocked: boolean): PrePingOutcome | Promise<PrePingOutcome> => {
    if (blocked) return { kind: "blocked" };
    if (answer === null) return { kind: "eligible" };
    if (answer.kind === "refused") return answer;
    const { leads, pings } = answer;
    if (pings.length > 0 && !test) return answeringCaps(deps.store.write((t) => pingCaps(t, leads, pings))).then(counted);
    // A `pings` cap refuses the prePing that would exceed it: when it is full, as a read tells.
    const read = deps.store.read((t) => pingCaps(t, test ? [...leads, ...pings] : leads, NO_CAPS));
    return read instanceof Promise ? read.then(counted) : counted(read);
  };
  return blocked instanceof Promise ? blocked.then(eligibility) : eligibility(blocked);
}

/** Not async: an accepted lead's answer is the group commit's own promise, not one wrapped around it. */
export function submitLead(deps: IntakeDeps, submission: LeadSubmission): Promise<SubmitOutcome> {
  const validation = validateLead(submission.body, deps);
  const errors = validation.ok ? [] : [...validation.errors];
  const key = submission.idempotencyKey;
  if (key !== null && !IDEMPOTENCY_KEY.test(key)) errors.push(FIELD_TEXTS.invalidIdempotencyKey);
  if (!validation.ok || errors.length > 0) return Promise.resolve({ kind: "invalid", errors });
  const requestHash = key === null ? "" : requestHashOf(submission.rawBody, submission.test);
  // The policy is decided here, in TypeScript, before any write: a refused lead never enters a
  // transaction nor PostgreSQL's batch. Its answer waits for the eligibility read below.
  const answer = deps.policy?.postLead(submission.vendorName ?? "", validation.value, deps.clock()) ?? null;
  if (answer?.kind === "refused") {
    const refusedBy = deps.policy?.postLeadRefusers?.(submission.vendorName ?? "", validation.value, deps.clock()) ?? [];
    return Promise.resolve(deps.store.read((t) => refusal(t, deps, submission, validation.value, requestHash, { ...answer, refusedBy })));
  }
  const caps = answer === null ? NO_CAPS : answer.leads;
  // Intake checks come after the rules and before the caps (docs/contract.md §2); a lead with none
  // in scope makes no promise for them.
  const checks = deps.policy?.postLeadChecks?.(submission.vendorName ?? "", validation.value) ?? null;
  if (checks !== null) return checkedLead(deps, submission, validation.value, requestHash, caps, checks);
  return writeLead(deps, submission, validation.value, requestHash, caps);
}

/**
 * The lead written, taking its caps' slots, or refused by a cap seen full. `checkAnswers`: what its
 * intake checks answered (CheckAnswers as JSON), stored with it for final rules (check.<name>.*).
 */
function writeLead(
  deps: IntakeDeps,
  submission: LeadSubmission,
  lead: ValidLead,
  requestHash: string,
  caps: readonly CapToTake[],
  checkAnswers?: string,
): Promise<SubmitOutcome> {
  if (submission.test) return writeTestLead(deps, submission, lead, requestHash, caps, checkAnswers);
  // The checks and the writes run in one transaction: nothing can slip in between them. A lead a
  // cap counts takes its slots there too (or in its batch's statement, on PostgreSQL).
  const alone: TableScript<SubmitOutcome> = (t) => acceptLead(t, deps, submission, lead, requestHash, caps, checkAnswers);
  const write = () =>
    deps.batches ? deps.batches.accept(leadToAccept(deps, submission, lead, requestHash, caps, alone, checkAnswers)) : deps.store.write(alone);
  if (caps.length === 0) return write();
  const written = () => answeringCaps(write(), (capped) => deps.fullCounters?.record(capped, deps.clock()));
  // A counter seen full stays full (caps.ts FullCountersSeen): refused by a read, as a rule is, with
  // no write to roll back and no counter's lock waited for. Otherwise the write's statement decides.
  if (!deps.fullCounters?.anyFull(caps)) return written();
  const refused = deps.store.read((t) => refusalAtFullCaps(t, deps, submission, lead, requestHash, caps));
  return refused instanceof Promise ? refused.then((outcome) => outcome ?? written()) : refused === null ? written() : Promise.resolve(refused);
}

/**
 * A lead with intake checks in scope (docs/contract.md §2, §11). What comes before the policy is
 * read first, since it decides before any check: a key's earlier answer (a replay calls no check
 * again) and the number's eligibility (a blocked number calls none). Then the checks, all at once,
 * bounded by the longest timeout_ms: a refusal answers 422 with their reasons; otherwise the write,
 * which still decides eligibility and caps for good (a claim may have come in meanwhile).
 */
async function checkedLead(
  deps: IntakeDeps,
  submission: LeadSubmission,
  lead: ValidLead,
  requestHash: string,
  caps: readonly CapToTake[],
  checks: () => Promise<ChecksAnswer>,
): Promise<SubmitOutcome> {
  const earlier = await answerBeforeChecks(deps, submission, lead, requestHash);
  if (earlier !== null) return earlier;
  const checked = await checks();
  if (checked.kind === "refused") return checked;
  return writeLead(deps, submission, lead, requestHash, caps, JSON.stringify(checked.answers));
}

/**
 * answerBeforePolicy for a lead with intake checks. On PostgreSQL a turn's leads are screened by one
 * statement (a blocked number, a live key: the facts it reads); only a lead it holds back is read
 * alone, for its exact answer, so a new lead pays no round trip of its own before its checks.
 * (SQLite's read answers at once, in this thread: nothing to gather.)
 */
function answerBeforeChecks(
  deps: IntakeDeps,
  submission: LeadSubmission,
  lead: ValidLead,
  requestHash: string,
): Promise<SubmitOutcome | null> | SubmitOutcome | null {
  const read = () => deps.store.read((t) => answerBeforePolicy(t, deps, submission, lead, requestHash));
  if (!deps.batches) return read();
  const now = deps.clock();
  const { vendorId, idempotencyKey: key } = submission;
  const facts = {
    phoneE164: lead.phoneE164,
    claimCutoff: now - deps.duplicateWindowMs,
    key: key === null ? null : { vendorId, key, cutoff: now - IDEMPOTENCY_TTL_MS },
  };
  return deps.batches.mayAnswerBeforePolicy(facts).then((heldBack) => (heldBack ? read() : null));
}

function leadToAccept(
  deps: IntakeDeps,
  submission: LeadSubmission,
  fields: ValidLead,
  requestHash: string,
  caps: readonly CapToTake[],
  alone: TableScript<SubmitOutcome>,
  checkAnswers: string | undefined,
): LeadToAccept {
  const now = deps.clock();
  const id = Bun.randomUUIDv7();
  const key = submission.idempotencyKey;
  return {
    fields,
    lead: { id, vendorId: submission.vendorId, rawRequest: submission.rawBody, checkAnswers, createdAt: now, decideAfter: now + deps.holdPeriodMs },
    callbackId: fields.callBackUrl === null ? null : callbackMessageId(id),
    key: key === null ? null : { key, requestHash },
    caps,
    alone,
  };
}

const NO_CAPS: readonly CapToTake[] = Object.freeze([]);
const NO_USE: readonly number[] = Object.freeze([]);

function* acceptLead(
  t: Tables,
  deps: IntakeDeps,
  submission: LeadSubmission,
  lead: ValidLead,
  requestHash: string,
  caps: readonly CapToTake[],
  checkAnswers: string | undefined,
): Script<SubmitOutcome> {
  const { vendorId, idempotencyKey: key } = submission;
  const now = deps.clock();
  if (key !== null) {
    const earlier = yield* answerOfKey(t, vendorId, key, requestHash, now);
    if (earlier) return earlier;
  }
  const leadId = Bun.randomUUIDv7();
  if (!(yield* op(t.phoneClaims.claim(lead.phoneE164, leadId, now, now - deps.duplicateWindowMs)))) {
    if (key === null) return yield* repostOrBlocked(t, vendorId, lead, now);
    // On PostgreSQL another instance may have taken this key since the lookup above: our claim
    // waited for its lead's claim and found the number taken once it committed, and its key
    // committed with it. Its answer is this request's. (On SQLite writes are serial: nothing new.)
    return (yield* answerOfKey(t, vendorId, key, requestHash, now)) ?? { kind: "blocked" };
  }
  // The number is eligible: the caps come last, and a full one rolls all of this back (caps.ts).
  if (caps.length > 0) yield* takeCaps(t, caps);
  const row = { id: leadId, vendorId, rawRequest: submission.rawBody, checkAnswers, createdAt: now, decideAfter: now + deps.holdPeriodMs };
  return yield* storeLead(t, submission, lead, row, requestHash);
}

/**
 * The answer to a lead the policy refuses. The checks before the policy's come first (docs/contract.md
 * §2): a key's earlier answer (§6), then the number's eligibility (§5), with a re-post of a lead
 * already accepted answered as its first post was. Only then the policy's 422. A read: nothing is
 * stored for a refused lead.
 */
function* refusal(
  t: Tables,
  deps: IntakeDeps,
  submission: LeadSubmission,
  lead: ValidLead,
  requestHash: string,
  refused: { kind: "refused"; reasons: readonly string[]; refusedBy?: readonly RefusedBy[] } | Capped,
): Script<SubmitOutcome> {
  return (yield* answerBeforePolicy(t, deps, submission, lead, requestHash)) ?? refused;
}

/** The refusal of a lead a full cap in its scope refuses (after a key's answer and eligibility, as above), or null while each has room. */
function* refusalAtFullCaps(
  t: Tables,
  deps: IntakeDeps,
  submission: LeadSubmission,
  lead: ValidLead,
  requestHash: string,
  caps: readonly CapToTake[],
): Script<SubmitOutcome | null> {
  const full = yield* fullCaps(t, caps);
  return full === null ? null : yield* refusal(t, deps, submission, lead, requestHash, full);
}
