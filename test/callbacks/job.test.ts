// The delivery job at shutdown: a delivery still running keeps its lease, so no other instance sends
// it again while its request may still reach the receiver (it is sent again once the lease expires).
import { expect, test } from "bun:test";
import { FAILURES_TO_OPEN, FIRST_COOLDOWN_MS } from "../../src/callbacks/endpoints.ts";
import { createDeliveryJob } from "../../src/callbacks/job.ts";
import { createFinalResultJob } from "../../src/final-results/job.ts";
import type { AttemptResult } from "../../src/callbacks/attempt.ts";
import { createLogger, type Logger } from "../../src/log/index.ts";
import type { DueCallback } from "../../src/store/callbacks/index.ts";
import { intakeHarness } from "../helpers/intake.ts";
import { validLead } from "../helpers/leads.ts";
import { waitUntil } from "../helpers/wait.ts";

const HOLD = 60_000;
const silent = createLogger("silent");
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

test("once an endpoint's circuit opens, its other callbacks are postponed to the cooldown's end, not counted; the same vendor's other path is sent", async () => {
  const DEAD = "https://vendor.example/dead";
  const FLAKY = "https://vendor.example/flaky";
  const h = await intakeHarness({ holdPeriodMs: HOLD });
  const urls = [...Array(FAILURES_TO_OPEN).fill(DEAD), ...Array(4).fill(DEAD), ...Array(3).fill(FLAKY)];
  for (const url of urls) await h.accept(validLead({ call_back_url: url }));
  h.now.value += HOLD;
  const decidedAt = h.now.value;
  await createFinalResultJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log: silent,
    verifyCertificate: null,
    batchSize: 100,
    leaseMs: LEASE,
    onDecided: () => {},
  }).runOnce();
  let deadAnswers = 503;
  const sent: string[] = [];
  const attempt = async (callback: DueCallback): Promise<AttemptResult> => {
    sent.push(callback.url);
    const statusCode = callback.url === DEAD ? deadAnswers : 200;
    return {
      startedAt: h.now.value,
      durationMs: 1,
      statusCode,
      error: statusCode === 200 ? null : `HTTP ${statusCode}`,
      responseExcerpt: null,
      retryAfterMs: null,
    };
  };
  const job = () =>
    createDeliveryJob({
      store: h.deps.store,
      clock: () => h.now.value,
      log: silent,
      attempt,
      backoff: { jitter: 0 },
      concurrency: () => 1,
      leaseMs: LEASE,
      onSettled: () => {},
      onAttempt: () => {},
    });
  const rows = (url: string) =>
    h.database.sqlite.query("SELECT status, attempt_count, next_attempt_at FROM callbacks WHERE url = ? ORDER BY lead_key").all(url) as Record<
      string,
      unknown
    >[];
  const paused = () => h.database.sqlite.query("SELECT vendor_id, target, failures, last_error, paused_at, paused_until FROM paused_endpoints").all();

  const delivery = job();
  await delivery.fill();
  await waitUntil(() => sent.length === FAILURES_TO_OPEN + 3);
  await delivery.fill(); // gives back what it did not send
  // Five sent and failed; the four after them not sent, due when the cooldown ends, no attempt spent.
  const until = decidedAt + FIRST_COOLDOWN_MS;
  expect(rows(DEAD)).toEqual([
    ...Array(FAILURES_TO_OPEN).fill({ status: "pending", attempt_count: 1, next_attempt_at: decidedAt + 5_000 }),
    ...Array(4).fill({ status: "pending", attempt_count: 0, next_attempt_at: until }),
  ]);
  expect(rows(FLAKY)).toEqual(Array(3).fill({ status: "delivered", attempt_count: 1, next_attempt_at: null }));
  expect(h.database.sqlite.query("SELECT count(*) AS n FROM callback_attempts").get()).toEqual({ n: FAILURES_TO_OPEN + 3 });
  const vendorId = (h.database.sqlite.query("SELECT id FROM vendors").get() as { id: string }).id;
  await waitUntil(() => paused().length === 1);
  expect(paused()).toEqual([
    { vendor_id: vendorId, target: DEAD, failures: FAILURES_TO_OPEN, last_error: "HTTP 503", paused_at: decidedAt, paused_until: until },
  ]);

  // At the cooldown's end a probe goes; it succeeds, so the circuit closes (its row goes) and the rest follow.
  h.now.value = until;
  deadAnswers = 200;
  await delivery.fill();
  await waitUntil(() => rows(DEAD).every((row) => row.status === "delivered"));
  await waitUntil(() => paused().length === 0);
  await delivery.stop(5_000);
  expect(sent).toHaveLength(FAILURES_TO_OPEN + 3 + 9);
  h.database.close();
});

test("a worker that stops leaves no endpoint shown paused by it", async () => {
  const h = await intakeHarness({ holdPeriodMs: HOLD });
  for (let i = 0; i < FAILURES_TO_OPEN; i++) await h.accept(validLead({ call_back_url: "https://vendor.example/dead" }));
  h.now.value += HOLD;
  await createFinalResultJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log: silent,
    verifyCertificate: null,
    batchSize: 100,
    leaseMs: LEASE,
    onDecided: () => {},
  }).runOnce();
  const failed = async (): Promise<AttemptResult> => ({
    startedAt: h.now.value,
    durationMs: 1,
    statusCode: 500,
    error: "HTTP 500",
    responseExcerpt: null,
    retryAfterMs: null,
  });
  const delivery = createDeliveryJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log: silent,
    attempt: failed,
    backoff: {},
    concurrency: () => 1,
    leaseMs: LEASE,
    onSettled: () => {},
    onAttempt: () => {},
  });
  const paused = () => (h.database.sqlite.query("SELECT count(*) AS n FROM paused_endpoints").get() as { n: number }).n;
  await delivery.fill();
  await waitUntil(() => paused() === 1);
  await delivery.stop(5_000);
  expect(paused()).toBe(0);
  h.database.close();
});
