// The delivery job at shutdown: a delivery still running keeps its lease, so no other instance sends
// it again while its request may still reach the receiver (it is sent again once the lease expires).
import { expect, test } from "bun:test";
import { createDeliveryJob } from "../../src/callbacks/job.ts";
import { createFinalResultJob } from "../../src/final-results/job.ts";
import type { AttemptResult } from "../../src/callbacks/attempt.ts";
import { createLogger, type Logger } from "../../src/log/index.ts";
import type { DueCallback } from "../../src/store/callbacks/index.ts";
import { intakeHarness } from "../helpers/intake.ts";
import { validLead } from "../helpers/leads.ts";
import { waitUntil } from "../helpers/wait.ts";

const HOLD = 60_000;
const LEASE = 10_000;

/**
 * `leads` accepted and decided, their callbacks due (each to an endpoint of its own, so no
 * endpoint's cap applies); a delivery job over them that answers each attempt with `attempt`,
 * `concurrency` at a time.
 */
async function decidedLeadsAndDeliveryJob(leads: number, log: Logger, attempt: (callback: DueCallback) => Promise<AttemptResult>, concurrency: number) {
  const h = await intakeHarness({ holdPeriodMs: HOLD });
  for (let i = 0; i < leads; i++) await h.accept(validLead({ call_back_url: `https://hooks-${i}.example.com/hook` }));
  h.now.value += HOLD;
  const decisions = { store: h.deps.store, clock: () => h.now.value, log, verifyCertificate: null, batchSize: leads, leaseMs: LEASE, onDecided: () => {} };
  await createFinalResultJob(decisions).runOnce();
  const job = createDeliveryJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log,
    attempt,
    backoff: {},
    concurrency: () => concurrency,
    leaseMs: LEASE,
    onSettled: () => {},
    onAttempt: () => {},
  });
  return { h, job };
}

test("stop keeps the lease of a delivery still in flight", async () => {
  // The receiver never answers.
  const { h, job } = await decidedLeadsAndDeliveryJob(1, createLogger("silent"), () => new Promise(() => {}), 1);
  expect(await job.fill()).toBe(1);
  await job.stop(10);
  expect(job.inFlight()).toBe(1);
  const lease = h.database.sqlite.query("SELECT claim_token IS NOT NULL AS claimed, locked_until FROM callbacks").get();
  expect(lease).toEqual({ claimed: 1, locked_until: h.now.value + LEASE });
  h.database.close();
});

test("an attempt's line is info when delivered, warn when it will be retried, error when the callback is dead", async () => {
  const lines: { level: string; event: string; outcome?: string }[] = [];
  const log = createLogger("info", (line) => lines.push(JSON.parse(line)));
  const answers = [200, 500, 410];
  const answer = async () => ({ startedAt: Date.now(), statusCode: answers.shift()!, retryAfterMs: null, durationMs: 1, error: null, responseExcerpt: "" });
  const { h, job } = await decidedLeadsAndDeliveryJob(3, log, answer, 3);
  expect(await job.fill()).toBe(3);
  await job.stop(1_000);
  const attempts = lines.filter((line) => line.event === "callback_attempt").map(({ level, outcome }) => [outcome, level]);
  expect(attempts.sort()).toEqual([
    ["dead", "error"],
    ["delivered", "info"],
    ["retry", "warn"],
  ]);
  h.database.close();
});

test("a claim takes the due callbacks ahead of the slots; each request's end starts the next queued one at once, with no claim", async () => {
  const answer: (() => void)[] = [];
  const ok = { startedAt: Date.now(), durationMs: 1, statusCode: 200, error: null, responseExcerpt: null, retryAfterMs: null };
  const { h, job } = await decidedLeadsAndDeliveryJob(12, createLogger("silent"), () => new Promise((resolve) => answer.push(() => resolve(ok))), 8);
  const claims = () =>
    (h.database.sqlite.query("SELECT count(DISTINCT claim_token) AS n FROM callbacks WHERE claim_token IS NOT NULL").get() as { n: number }).n;
  expect(await job.fill()).toBe(12); // all twelve claimed in one write, eight sent
  expect(answer).toHaveLength(8);
  expect(claims()).toBe(1);
  for (let next = 9; next <= 12; next++) {
    answer.shift()!();
    await waitUntil(() => answer.length === 8); // the next queued one went out as that answer came
  }
  expect(claims()).toBe(1);
  for (const deliver of answer.splice(0)) deliver();
  await job.stop(5_000);
  expect(h.database.sqlite.query("SELECT count(*) AS n FROM callbacks WHERE status = 'delivered'").get()).toEqual({ n: 12 });
  h.database.close();
});
