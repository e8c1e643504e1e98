// The worker's decision and attempt lines reach stdout before the state they report is committed
// (issue 16 item 8): a kill -9 may undo a logged decision (it is then made again, with another
// line) but never leaves a recorded one without its line. On a real in-memory database, with a log
// sink that records what was flushed and a committer that records each transaction's effect.
import { storeOn } from "../../src/store/sqlite.ts";
import { beforeEach, expect, test } from "bun:test";
import { createDeliveryJob } from "../../src/callbacks/job.ts";
import { createFinalResultJob } from "../../src/final-results/job.ts";
import { createLogger, type Logger } from "../../src/log/index.ts";
import type { ServiceStore } from "../../src/store/index.ts";
import { addSuppression } from "../../src/suppression/index.ts";
import { intakeHarness, type IntakeHarness } from "../helpers/intake.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";

const HOLD = 60_000;
let h: IntakeHarness;
/** What happened, in order: "stdout: <line>" when a line is flushed, "commit: <state>" when a transaction ends. */
let events: string[];
let onFlush: () => void;

beforeEach(async () => {
  h = await intakeHarness({ holdPeriodMs: HOLD });
  events = [];
  onFlush = () => {};
});

const state = () => {
  const lead = h.database.sqlite.query("SELECT status FROM leads").get() as { status: string };
  const callback = h.database.sqlite.query("SELECT status FROM callbacks").get() as { status: string };
  return `lead ${lead.status}, callback ${callback.status}`;
};

/** Lines wait in the sink until flushed, as they do in the buffered stdout. */
function recordingLog(): Logger {
  let pending: string[] = [];
  return createLogger("info", {
    write: (line) => pending.push(line),
    flush: async () => {
      for (const line of pending) {
        const { event, status, outcome } = JSON.parse(line);
        events.push(`stdout: ${event} ${status ?? outcome}`);
      }
      pending = [];
      onFlush();
    },
  });
}

/** The state each write leaves, recorded as its transaction commits. */
function recordingStore(): ServiceStore {
  const real = h.deps.store;
  return {
    ...real,
    write: (script, options) =>
      real.write(function* (tables) {
        const value = yield* script(tables);
        events.push(`commit: ${state()}`);
        return value;
      }, options),
  };
}

function decisionJob(log: Logger) {
  return createFinalResultJob({
    store: recordingStore(),
    clock: () => h.now.value,
    log,
    verifyCertificate: null,
    batchSize: 10,
    leaseMs: 10_000,
    onDecided: () => {},
  });
}

test("final_result is on stdout before the decision is committed", async () => {
  await h.accept(validLead());
  h.now.value += HOLD;
  await decisionJob(recordingLog()).runOnce();
  expect(events).toEqual([
    "commit: lead pending, callback held", // the claim
    "stdout: final_result accepted",
    "commit: lead accepted, callback pending",
  ]);
});

test("a suppression landing between the line and the commit: nothing recorded from that line, the lead decided again with a second line", async () => {
  const phone = uniquePhone();
  await h.accept(validLead({ phone_number: phone }));
  h.now.value += HOLD;
  onFlush = () => {
    onFlush = () => {};
    void addSuppression(storeOn(h.database.db), phone, "test", "test", h.now.value);
  };
  await decisionJob(recordingLog()).runOnce();
  expect(events).toEqual([
    "commit: lead pending, callback held",
    "stdout: final_result accepted",
    "commit: lead pending, callback held",
    "stdout: final_result rejected",
    "commit: lead rejected, callback pending",
  ]);
});

test("callback_attempt is on stdout before the attempt is committed", async () => {
  await h.accept(validLead());
  h.now.value += HOLD;
  const log = recordingLog();
  await decisionJob(log).runOnce();
  events = [];
  let settled!: () => void;
  const done = new Promise<void>((resolve) => (settled = resolve));
  const job = createDeliveryJob({
    store: recordingStore(),
    clock: () => h.now.value,
    log,
    attempt: async () => ({ startedAt: h.now.value, durationMs: 5, statusCode: 200, error: null, responseExcerpt: "ok", retryAfterMs: null }),
    backoff: {},
    concurrency: () => 1,
    leaseMs: 10_000,
    onSettled: () => settled(),
    onAttempt: () => {},
  });
  expect(await job.fill()).toBe(1);
  await done;
  expect(events).toEqual([
    "commit: lead accepted, callback pending", // the claim
    "stdout: callback_attempt delivered",
    "commit: lead accepted, callback delivered",
  ]);
});
