// The delivery job at shutdown: a delivery still running keeps its lease, so no other instance sends
// it again while its request may still reach the receiver (it is sent again once the lease expires).
import { expect, test } from "bun:test";
import { createDeliveryJob } from "../../src/callbacks/job.ts";
import { createFinalResultJob } from "../../src/final-results/job.ts";
import { createLogger } from "../../src/log/index.ts";
import { intakeHarness } from "../helpers/intake.ts";
import { validLead } from "../helpers/leads.ts";
import { waitUntil } from "../helpers/wait.ts";

const HOLD = 60_000;
const LEASE = 10_000;

test("stop keeps the lease of a delivery still in flight", async () => {
  const h = await intakeHarness({ holdPeriodMs: HOLD });
  const log = createLogger("silent");
  await h.accept(validLead());
  h.now.value += HOLD;
  await createFinalResultJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log,
    verifyCertificate: null,
    batchSize: 10,
    leaseMs: LEASE,
    onDecided: () => {},
  }).runOnce();
  const job = createDeliveryJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log,
    attempt: () => new Promise(() => {}), // the receiver never answers
    backoff: {},
    concurrency: () => 1,
    leaseMs: LEASE,
    onSettled: () => {},
    onAttempt: () => {},
  });
  expect(await job.fill()).toBe(1);
  await job.stop(10);
  expect(job.inFlight()).toBe(1);
  const lease = h.database.sqlite.query("SELECT claim_token IS NOT NULL AS claimed, locked_until FROM callbacks").get();
  expect(lease).toEqual({ claimed: 1, locked_until: h.now.value + LEASE });
  h.database.close();
});

test("an attempt's line is info when delivered, warn when it will be retried, error when the callback is dead", async () => {
  const h = await intakeHarness({ holdPeriodMs: HOLD });
  const lines: { level: string; event: string; outcome?: string }[] = [];
  const log = createLogger("info", (line) => lines.push(JSON.parse(line)));
  for (let i = 0; i < 3; i++) await h.accept(validLead());
  h.now.value += HOLD;
  await createFinalResultJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log,
    verifyCertificate: null,
    batchSize: 10,
    leaseMs: LEASE,
    onDecided: () => {},
  }).runOnce();
  const answers = [200, 500, 410];
  const job = createDeliveryJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log,
    attempt: async () => ({ startedAt: h.now.value, statusCode: answers.shift()!, retryAfterMs: null, durationMs: 1, error: null, responseExcerpt: "" }),
    backoff: {},
    concurrency: () => 3,
    leaseMs: LEASE,
    onSettled: () => {},
    onAttempt: () => {},
  });
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

test("while deliveries are in flight, more are claimed only once a quarter of the slots are free (a claim is a write)", async () => {
  const h = await intakeHarness({ holdPeriodMs: HOLD });
  const log = createLogger("silent");
  for (let i = 0; i < 12; i++) await h.accept(validLead());
  h.now.value += HOLD;
  await createFinalResultJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log,
    verifyCertificate: null,
    batchSize: 20,
    leaseMs: LEASE,
    onDecided: () => {},
  }).runOnce();
  const answer: (() => void)[] = [];
  const ok = { startedAt: h.now.value, durationMs: 1, statusCode: 200, error: null, responseExcerpt: null, retryAfterMs: null };
  const job = createDeliveryJob({
    store: h.deps.store,
    clock: () => h.now.value,
    log,
    attempt: () => new Promise((resolve) => answer.push(() => resolve(ok))),
    backoff: {},
    concurrency: () => 8,
    leaseMs: LEASE,
    onSettled: () => {},
    onAttempt: () => {},
  });
  expect(await job.fill()).toBe(8);
  answer.shift()!();
  await waitUntil(() => job.inFlight() === 7);
  expect(await job.fill()).toBe(0); // one slot of eight free
  answer.shift()!();
  await waitUntil(() => job.inFlight() === 6);
  expect(await job.fill()).toBe(2); // a quarter free: both claimed at once
  for (const deliver of answer.splice(0)) deliver();
  await job.stop(5_000);
  h.database.close();
});
