// Runs one step of a case: one request, or the step's mode (concurrent, repeat, poll), and says how
// the answer compares with the expectation.
import type { CountExpectation, ResponseExpectation, Step } from "./fixture.ts";
import { findHeaderMismatch, findMismatch, show } from "./match.ts";
import { fillPlaceholders, type CaseValues } from "./placeholders.ts";
import { send, type Answer, type Target } from "./request.ts";

export interface StepOutcome {
  /** What came back, for the table: "200", or "200×1 422×9". */
  got: string;
  /** The first difference, or null when the step matched. */
  mismatch: string | null;
  /** The answer that was judged (not for concurrent steps). */
  answer?: Answer;
}

const POLL_INTERVAL_MS = 100;
const REPEAT_BATCH = 10;

export async function runStep(step: Step, target: Target, values: CaseValues): Promise<StepOutcome> {
  const request = fillPlaceholders(step.request, values);
  if (step.concurrent !== undefined) return runConcurrent(step, target, request);
  // Filled before the answer is read: "{{lead_id}}" means an earlier step's lead_id, not this one's.
  const expect = fillPlaceholders(step.expect as ResponseExpectation, values);
  if (step.repeat !== undefined) return runRepeated(step.repeat, target, request, expect);
  if (step.poll) return runPolled(target, request, expect);
  const answer = await send(request, target);
  return { got: String(answer.status), mismatch: checkAnswer(expect, answer), answer };
}

/** The first difference between an answer and its expectation: status, then headers, then body. */
export function checkAnswer(expect: ResponseExpectation, answer: Answer): string | null {
  if (answer.body === undefined) return `answer is not JSON (status ${answer.status}): ${show(answer.bodyText)}`;
  if (answer.status !== expect.status) return `status: expected ${expect.status}, got ${answer.status} with ${show(answer.body)}`;
  if (expect.headers) {
    const mismatch = findHeaderMismatch(expect.headers, (name) => answer.headers.get(name));
    if (mismatch) return mismatch;
  }
  return findMismatch(expect.body, answer.body);
}

/** N copies at once: only how many got each status is judged (which one wins is luck). */
async function runConcurrent(step: Step, target: Target, request: Step["request"]): Promise<StepOutcome> {
  const answers = await Promise.all(Array.from({ length: step.concurrent! }, () => send(request, target)));
  const counts: Record<string, number> = {};
  for (const answer of answers) counts[answer.status] = (counts[answer.status] ?? 0) + 1;
  const want = (step.expect as CountExpectation).statusCounts;
  const statuses = new Set([...Object.keys(want), ...Object.keys(counts)]);
  const same = [...statuses].every((status) => (want[status] ?? 0) === (counts[status] ?? 0));
  return { got: describeCounts(counts), mismatch: same ? null : `status counts: expected ${describeCounts(want)}, got ${describeCounts(counts)}` };
}

export function describeCounts(counts: Record<string, number>): string {
  return Object.entries(counts)
    .filter(([, n]) => n > 0)
    .sort(([a], [b]) => Number(a) - Number(b))
    .map(([status, n]) => `${status}×${n}`)
    .join(" ");
}

/**
 * Sends the request in batches until an answer has the wanted status, or `max` requests went out.
 * Made for 429: afterwards it waits out the Retry-After it got, or the step's cooldown when longer
 * (never beyond the timeout), so the cases that follow are not refused by the same limit.
 */
async function runRepeated(repeat: NonNullable<Step["repeat"]>, target: Target, request: Step["request"], expect: ResponseExpectation): Promise<StepOutcome> {
  let sent = 0;
  let judged: Answer | undefined;
  while (sent < repeat.max && judged?.status !== repeat.until) {
    const batch = Math.min(REPEAT_BATCH, repeat.max - sent);
    const answers = await Promise.all(Array.from({ length: batch }, () => send(request, target)));
    sent += batch;
    judged = answers.find((answer) => answer.status === repeat.until) ?? answers.at(-1);
  }
  const answer = judged!;
  const retryAfterMs = Number(answer.headers.get("retry-after")) * 1000;
  const waitMs = Math.min(Math.max(Number.isFinite(retryAfterMs) ? retryAfterMs : 0, repeat.cooldownMs), target.timeoutMs);
  if (waitMs > 0) await Bun.sleep(waitMs);
  const got = answer.status === repeat.until ? `${answer.status} (after ${sent})` : `${answer.status} (${sent} sent)`;
  return { got, mismatch: checkAnswer(expect, answer), answer };
}

/** Resends until the answer matches (a final result settles), bounded by the timeout. */
async function runPolled(target: Target, request: Step["request"], expect: ResponseExpectation): Promise<StepOutcome> {
  const deadline = performance.now() + target.timeoutMs;
  const maxTries = Math.ceil(target.timeoutMs / POLL_INTERVAL_MS) + 1;
  let answer = await send(request, target);
  let mismatch = checkAnswer(expect, answer);
  for (let tries = 1; mismatch !== null && tries < maxTries && performance.now() < deadline; tries++) {
    await Bun.sleep(POLL_INTERVAL_MS);
    answer = await send(request, target);
    mismatch = checkAnswer(expect, answer);
  }
  return { got: String(answer.status), mismatch: mismatch === null ? null : `still after ${target.timeoutMs} ms: ${mismatch}`, answer };
}
