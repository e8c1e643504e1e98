// Test mode (docs/contract.md §12 "Test mode"): a vendor tries its integration with a lead sent with
// `X-Test-Lead: true` or to a /v1/test/ route. It is judged as a real lead is (validation,
// eligibility, schedules, rules, intake checks, caps) and gets the real answer, but changes nothing
// a real lead is judged by: it claims no number and takes no cap slot. It is stored marked as a
// test, decided after a short hold, and its callback says `"test": true`.
//
// It takes the per-lead path on both databases (one write script, not PostgreSQL's batch): test
// traffic is light, and the batch statement, intake's hot path, stays as it is.
import type { Script } from "../db/script.ts";
import { answerBeforePolicy, storeLead } from "./before-policy.ts";
import { fullCaps } from "./caps.ts";
import type { IntakeDeps, LeadSubmission, SubmitOutcome } from "./deps.ts";
import type { ValidLead } from "./lead-schema.ts";
import type { CapToTake } from "./policy-port.ts";

/** The request header that makes a postLead or a prePing a test (docs/contract.md §12). */
export const TEST_LEAD_HEADER = "x-test-lead";

/** Whether a request is a test: sent to a /v1/test/ route, or with `X-Test-Lead: true` (any case; any other value is a real request). */
export const isTestRequest = (request: Request, testRoute: boolean): boolean =>
  testRoute || request.headers.get(TEST_LEAD_HEADER)?.trim().toLowerCase() === "true";

/**
 * What an Idempotency-Key's saved answer is compared with: the body's hash, a test's marked apart,
 * so a key first used by a test lead answers a real post with the same body as another request
 * (422), never with the test lead, and the other way round.
 */
export const requestHashOf = (rawBody: string, test: boolean | undefined): string => Bun.SHA256.hash(test ? `test\n${rawBody}` : rawBody, "hex");

/**
 * A test lead, admitted by the policy's rules and checks: the steps before the policy (a key's
 * earlier answer, the number's eligibility) and its caps are read, never taken, in the transaction
 * that stores it, so its answer is the one a real lead would get now.
 */
export function writeTestLead(
  deps: IntakeDeps,
  submission: LeadSubmission,
  lead: ValidLead,
  requestHash: string,
  caps: readonly CapToTake[],
  checkAnswers: string | undefined,
): Promise<SubmitOutcome> {
  return deps.store.write(function* (t): Script<SubmitOutcome> {
    const earlier = yield* answerBeforePolicy(t, deps, submission, lead, requestHash);
    if (earlier !== null) return earlier;
    const full = caps.length > 0 ? yield* fullCaps(t, caps) : null;
    if (full !== null) return full;
    const now = deps.clock();
    const row = {
      id: Bun.randomUUIDv7(),
      vendorId: submission.vendorId,
      rawRequest: submission.rawBody,
      checkAnswers,
      createdAt: now,
      decideAfter: now + deps.testHoldPeriodMs,
      test: true,
    };
    return yield* storeLead(t, submission, lead, row, requestHash);
  });
}
