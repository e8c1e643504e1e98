// Intake's checks on their own thread (src/checks/thread-host.ts, thread.ts): a turn's requests go
// in one message and each lead still gets its own answer; a hanging service, and a thread that
// never answers, cost a lead its check's timeout and no more; a thread stuck past its timeout and a
// grace is ended and started again; a thread that dies with checks in
// flight answers them as errors (on_error decides) and is started again; and a thread is started
// as soon as the policy in force has an intake check, never while it has none. Against a real
// local service on 127.0.0.1.
import { afterAll, afterEach, expect, test } from "bun:test";
import { type CheckThread, type CheckThreadDeps, createCheckThread } from "../../src/checks/thread-host.ts";
import { intakeChecks } from "../../src/checks/intake.ts";
import { createLogger } from "../../src/log/index.ts";
import { compilePolicy, type Policy } from "../../src/policy/index.ts";
import { intakePolicy } from "../../src/policy-in-force/intake.ts";
import type { ValidLead } from "../../src/intake/lead-schema.ts";
import { waitUntil } from "../helpers/wait.ts";
import { check, lead, SECRET } from "./fixtures.ts";

/** The service: /echo fails each lead with its own phone as the reason; /slow passes after 300 ms; /hang never answers. */
const service = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/hang") return new Promise<Response>(() => {});
    const body = (await request.json()) as { fields: { phone_number: string } };
    if (path === "/slow") await Bun.sleep(300);
    if (path === "/echo") return Response.json({ outcome: "fail", reason: `phone ${body.fields.phone_number}` });
    return Response.json({ outcome: "pass" });
  },
});
const url = (path: string) => `http://127.0.0.1:${service.port}${path}`;
afterAll(() => service.stop(true));

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger("info", (line) => lines.push(JSON.parse(line))) };
}

const opened: CheckThread[] = [];
afterEach(() => {
  for (const thread of opened.splice(0)) thread.close();
});

/** A checks' thread on the test fixture (the real thread, logging each batch's size) unless `threadUrl` says otherwise. */
function checksThread(threadUrl = new URL("./fixtures/check-thread.ts", import.meta.url), options: Partial<CheckThreadDeps> = {}) {
  const { lines, log } = capturingLogger();
  const thread = createCheckThread({ secret: () => SECRET, clock: Date.now, allowPrivate: true, log, threadUrl, ...options });
  opened.push(thread);
  return { thread, lines };
}

const phone = (n: number) => `+1212555${String(n).padStart(4, "0")}`;

test("many leads in one turn go to the thread in one message, and each gets its own answer", async () => {
  const { thread, lines } = checksThread();
  const echo = check({ name: "echo", url: url("/echo") });
  // Started by a first lead, so the batch below is the thread's second.
  expect((await thread.run([echo], lead(phone(0))))[0]!.answer).toEqual({ outcome: "fail", reason: `phone ${phone(0)}` });
  const pending = Array.from({ length: 50 }, (_, n) => thread.run([echo], lead(phone(n + 1))));
  const results = await Promise.all(pending);
  results.forEach((result, n) => {
    expect(result[0]!.answer).toEqual({ outcome: "fail", reason: `phone ${phone(n + 1)}` });
    expect(result[0]!.source).toBe("request");
  });
  expect(lines.filter((line) => line.event === "test_batch").map((line) => line.requests)).toEqual([1, 50]);
});

test("a lead's several checks come back in the checks' order; a cached answer is given without asking the thread", async () => {
  const { thread, lines } = checksThread();
  const checks = [check({ name: "echo", url: url("/echo"), cache: "1h" }), check({ name: "pass", url: url("/pass") })];
  const first = await thread.run(checks, lead(phone(7)));
  expect(first.map((result) => [result.check.name, result.answer.outcome, result.source])).toEqual([
    ["echo", "fail", "request"],
    ["pass", "pass", "request"],
  ]);
  const again = await thread.run(checks.slice(0, 1), lead(phone(7)));
  expect(again[0]).toMatchObject({ answer: { outcome: "fail", reason: `phone ${phone(7)}` }, source: "cache", durationMs: 0 });
  expect(lines.filter((line) => line.event === "test_batch").map((line) => line.requests)).toEqual([2]);
});

test("a hanging service: every lead of a burst gets a timeout error at the check's timeout, not later", async () => {
  const { thread } = checksThread();
  const hangs = check({ name: "hangs", url: url("/hang"), timeout_ms: 200 });
  const started = performance.now();
  const results = await Promise.all(Array.from({ length: 20 }, (_, n) => thread.run([hangs], lead(phone(n)))));
  const waited = performance.now() - started;
  for (const [result] of results) expect(result!.answer).toEqual({ outcome: "error", error: "timed out after 200 ms" });
  expect(waited).toBeGreaterThanOrEqual(195);
  expect(waited).toBeLessThan(200 + 300);
});

/** `thread` started (its start, 0.1-0.5 s, is not on a lead's timeout), and how many starts were logged. */
async function started(thread: CheckThread, lines: Record<string, unknown>[], count = 1) {
  thread.prepare();
  await waitUntil(() => lines.filter((line) => line.event === "checks_thread_started").length === count);
}

test("a stuck thread: intake's own deadline answers its leads at the check's timeout; past the grace it is ended and started again, and the new thread answers the next lead", async () => {
  const { thread, lines } = checksThread(undefined, { stuckGraceMs: 200 });
  const pass = check({ name: "pass", url: url("/pass") });
  const sticks = check({ name: "sticks", url: url("/pass"), timeout_ms: 150, send: ["phone_number", "email"] });
  await started(thread, lines);
  expect((await thread.run([pass], lead(phone(1))))[0]!.answer).toEqual({ outcome: "pass", reason: "" });
  // Its body carries "stick-thread": the fixture then loops for ever, answering nothing.
  const asked = performance.now();
  const [stuck] = await thread.run([sticks], lead(phone(2), { email: "stick-thread@example.com" }));
  expect(stuck!.answer).toEqual({ outcome: "error", error: "timed out after 150 ms" });
  expect(performance.now() - asked).toBeLessThan(150 + 300);
  expect(lines.some((line) => line.event === "checks_thread_failed")).toBe(false);
  // Asked of the stuck thread before the grace ends, with a timeout past it: answered when the thread is ended.
  const inFlight = thread.run([pass], lead(phone(5)));
  await waitUntil(() => lines.some((line) => line.event === "checks_thread_failed"));
  expect(performance.now() - asked).toBeGreaterThanOrEqual(150 + 200 - 5);
  const reason = "stuck: 1 of its check requests unanswered 200 ms after their 150 ms timeout";
  expect(lines.find((line) => line.event === "checks_thread_failed")).toMatchObject({ level: "error", error: reason });
  expect((await inFlight)[0]!.answer).toEqual({ outcome: "error", error: `the checks' thread ended: ${reason}` });
  await started(thread, lines, 2);
  const [next] = await thread.run([pass], lead(phone(3)));
  expect(next!.answer).toEqual({ outcome: "pass", reason: "" });
  expect(lines.filter((line) => line.event === "test_batch").map((line) => line.requests)).toEqual([1, 1, 1]);
});

test("a thread that answers after intake's deadline but within the grace is not stuck", async () => {
  const { thread, lines } = checksThread(undefined, { stuckGraceMs: 300 });
  await started(thread, lines);
  // The thread's own deadline starts when the batch reaches it, a turn after intake's: it answers the
  // hanging request a little after intake has, which the watchdog must take as an answer.
  const [result] = await thread.run([check({ name: "hangs", url: url("/hang"), timeout_ms: 100 })], lead(phone(4)));
  expect(result!.answer).toEqual({ outcome: "error", error: "timed out after 100 ms" });
  await Bun.sleep(100 + 300 + 100);
  expect(lines.some((line) => line.event === "checks_thread_failed")).toBe(false);
  expect(lines.filter((line) => line.event === "checks_thread_started").length).toBe(1);
});

test("the thread dying with checks in flight: they answer errors (on_error decides), the failure is logged, and a new thread answers the next lead", async () => {
  const { thread, lines } = checksThread();
  const accepting = check({ name: "slow", url: url("/slow"), on_error: "accept" });
  const rejecting = check({ name: "strict", url: url("/slow"), on_error: "reject", send: ["phone_number", "email"] });
  const judged = intakeChecks(thread);
  const inFlight = judged.run([accepting], lead(phone(1)));
  // Its body carries "crash-thread": the fixture exits 50 ms after receiving it, before /slow answers.
  const crashing = judged.run([rejecting], lead(phone(2), { email: "crash-thread@example.com" }));
  expect(await inFlight).toEqual({ kind: "passed", answers: { slow: { outcome: "error", reason: "Check unavailable: slow" } } });
  expect(await crashing).toEqual({ kind: "refused", reasons: ["Check unavailable: strict"], refusedBy: [{ kind: "check", name: "strict" }] });
  const failed = lines.find((line) => line.event === "checks_thread_failed");
  expect(failed).toMatchObject({ level: "error", error: "the thread exited" });
  const [next] = await thread.run([check({ name: "pass", url: url("/pass") })], lead(phone(3)));
  expect(next!.answer).toEqual({ outcome: "pass", reason: "" });
  await waitUntil(() => lines.filter((line) => line.event === "checks_thread_started").length === 2);
});

test("no thread is started while the policy in force has no intake check; one is as soon as it has one, before any lead", async () => {
  const validLead = { phoneE164: phone(9), state: "NY", vendorCampaignName: "solar" } as ValidLead;
  const pass = { name: "pass", url: url("/pass") };
  let compiled = compilePolicy({ rules: [] } as Policy);
  const inForce = { current: () => compiled };
  const { thread } = checksThread();
  const policy = intakePolicy(inForce, intakeChecks(thread));
  for (const without of [{ rules: [] }, { checks: [{ ...pass, stage: "final" }] }, { checks: [{ ...pass, enabled: false }] }] as Policy[]) {
    compiled = compilePolicy(without);
    expect(policy.postLeadChecks!("acme", validLead)).toBeNull();
    expect(policy.postLead("acme", validLead, Date.now())).toBeNull();
    expect(thread.running()).toBe(false);
  }
  // Checks for another vendor only: this lead asks none, but the policy has one, so the thread starts.
  compiled = compilePolicy({ checks: [{ ...pass, vendors: ["other"] }] } as Policy);
  expect(policy.postLeadChecks!("acme", validLead)).toBeNull();
  expect(thread.running()).toBe(true);
  // At construction too: a service started with such a policy starts its thread before any request.
  const { thread: atStart } = checksThread();
  intakePolicy({ current: () => compilePolicy({ checks: [pass] } as Policy) }, intakeChecks(atStart));
  expect(atStart.running()).toBe(true);
  const withCheck = intakePolicy({ current: () => compilePolicy({ checks: [pass] } as Policy) }, intakeChecks(thread));
  expect(await withCheck.postLeadChecks!("acme", validLead)!()).toEqual({ kind: "passed", answers: { pass: { outcome: "pass", reason: "" } } });
});
