// Intake's checks asked on a thread of their own (thread.ts; docs/checks.md, "The checks' thread").
// A check request's CPU is mostly its socket's write and read (bench/README.md, "External checks'
// cost"): on intake's event loop that halved postLead's throughput. Here intake's thread keeps what
// is cheap: the answer cache (a cached answer costs no message), writing the request's body, and a
// deadline per check; every request of a turn goes to the thread in one message, and the thread
// posts its answers together (1 ms after the first), so a lead pays a share of two messages.
//
// The thread runs the guard, the address rules, the signing and the check's timeout; intake keeps
// a deadline of its own at the same timeout, so a lead is answered in time even if the thread is
// stuck. A thread that leaves a request unanswered past its timeout and a grace (stuckGraceMs) is
// stuck, since the thread answers each by its own deadline: a watchdog, armed only when intake's
// deadline answers first, ends it and starts another. The thread is started when the policy in
// force has intake checks (prepare, called by policy-in-force/intake.ts; a policy without any
// costs no thread). One that ends is started again (at once, then after 1 s doubling to 30 s
// while it keeps ending before it is up), and the checks it had in flight answer errors: on_error
// applies.
import type { Logger } from "../log/index.ts";
import { restartDelayMs } from "../threads/restart.ts";
import type { LeadFacts } from "../policy/index.ts";
import { type AnswerCache, createAnswerCache } from "./cache.ts";
import type { CompiledCheck } from "./entry.ts";
import { checkBody } from "./request.ts";
import { type CheckResult, type CheckRunner, timedOut } from "./run.ts";
import type { CheckAnswer } from "./send.ts";
import { ANSWER_FIELDS, type AnsweredOutcome, type AnsweredSource, type FromThread, type ThreadCheck, type ToThread } from "./thread-messages.ts";

export interface CheckThreadDeps {
  /** The `checks` signing secret, read once per batch: a new one goes to the thread with the next. */
  secret: () => string;
  clock: () => number;
  /** Private and loopback addresses allowed (the callbacks' setting: development and tests). */
  allowPrivate: boolean;
  /** The guard's pauses (from the thread) and the thread's own starts and failures. */
  log: Pick<Logger, "info" | "warn" | "error">;
  /** The thread's entry module, thread.ts (resolved at src/'s root, app.ts, as server.ts resolves the other threads'); tests pass a stand-in. */
  threadUrl: URL;
  cache?: AnswerCache;
  maxSlowPerCheck?: number;
  /** How long after a request's timeout the thread may still answer it before it counts as stuck: default STUCK_GRACE_MS. */
  stuckGraceMs?: number;
}

export interface CheckThread extends Pick<CheckRunner, "run"> {
  /** Starts the thread now if none is up or starting (the policy in force has intake checks). */
  prepare(): void;
  /** Whether a thread is up or starting: none until a lead has a check to ask. */
  running(): boolean;
  /** Ends the thread; its checks in flight answer errors. */
  close(): void;
}

interface Thread {
  worker: Worker;
  /** The checks this thread was sent, by their id. */
  checkIds: WeakMap<CompiledCheck, number>;
  /** The secret it was sent last. */
  secret: string | null;
  ended: boolean;
  /** Requests intake's deadline answered before the thread did: the thread owes each an answer within the grace. */
  overdue: Set<number>;
}

/** The leads of one batch waiting on one timeout: one timer for them all. */
interface Deadline {
  thread: Thread;
  ids: number[];
  left: number;
  timer?: Timer;
}

/** A lead's checks: one promise for them all (not one per check and a Promise.all), settled when the last is answered. */
interface LeadWait {
  /** In the checks' order. */
  results: CheckResult[];
  left: number;
  resolve: (results: CheckResult[]) => void;
}

interface Waiting {
  check: CompiledCheck;
  phone: string | undefined;
  /** performance.now() when its batch began. */
  startedAt: number;
  deadline: Deadline;
  lead: LeadWait;
  /** Its place in lead.results. */
  at: number;
}

/** The requests of this turn, for one thread. */
interface Batch {
  thread: Thread;
  checks: ThreadCheck[];
  requests: (number | string)[];
  startedAt: number;
  deadlines: Map<number, Deadline>;
}

/**
 * A healthy thread answers each request by its timeout, counted from when the batch reaches it (a
 * turn and a message after intake's count starts, or once it is up if it was starting: 0.1-0.5 s),
 * so it is late only by that and its event loop's pauses: milliseconds, hundreds on a loaded
 * machine. Five seconds is far past those; while a thread is stuck each checked lead waits its
 * check's full timeout and gets on_error, so not much longer.
 */
const STUCK_GRACE_MS = 5_000;

export function createCheckThread(deps: CheckThreadDeps): CheckThread {
  const cache = deps.cache ?? createAnswerCache();
  const stuckGraceMs = deps.stuckGraceMs ?? STUCK_GRACE_MS;
  const waiting = new Map<number, Waiting>();
  let thread: Thread | null = null;
  let batch: Batch | null = null;
  let restartTimer: Timer | undefined;
  let failures = 0;
  let closed = false;
  let nextId = 0;
  let nextCheckId = 0;

  function launch(): Thread {
    const worker = new Worker(deps.threadUrl.href);
    // The listener keeps the process alive; this thread must not.
    worker.unref();
    const started: Thread = { worker, checkIds: new WeakMap(), secret: null, ended: false, overdue: new Set() };
    worker.onmessage = ({ data }: MessageEvent<FromThread>) => {
      if (started.ended) return;
      if (data.kind === "answers") return settleAnswers(started, data.answers);
      if (data.kind === "log") return deps.log[data.level](data.event, data.fields);
      deps.log.info("checks_thread_started", failures > 0 ? { after_failures: failures } : undefined);
      failures = 0;
    };
    worker.onerror = (event) => ended(started, event.message);
    worker.addEventListener("close", () => ended(started, "the thread exited"));
    worker.postMessage({ kind: "start", allowPrivate: deps.allowPrivate, maxSlowPerCheck: deps.maxSlowPerCheck } satisfies ToThread);
    return started;
  }

  /** The thread failed: its checks in flight (and this turn's, not yet sent) answer errors, and another starts. */
  function ended(which: Thread, reason: string) {
    if (which.ended) return;
    which.ended = true;
    which.worker.terminate();
    if (thread !== which) return;
    thread = null;
    batch = null;
    const error: CheckAnswer = { outcome: "error", error: `the checks' thread ended: ${reason}` };
    const now = performance.now();
    for (const id of [...waiting.keys()]) settle(id, error, "request", now);
    if (closed) return;
    const delayMs = restartDelayMs(failures);
    failures++;
    deps.log.error("checks_thread_failed", {
      error: reason,
      action: `its checks in flight answered errors (on_error applies); restarting it in ${delayMs} ms`,
    });
    // At once the first time, so the next lead finds a thread; later ones wait.
    if (delayMs === 0) thread = launch();
    else
      restartTimer = setTimeout(() => {
        restartTimer = undefined;
        if (!closed) thread = launch();
      }, delayMs);
  }

  /** Resolves request `id`'s lead; false if it was answered already (its deadline came first). */
  function settle(id: number, answer: CheckAnswer, source: AnsweredSource, now: number): boolean {
    const waited = waiting.get(id);
    if (waited === undefined) return false;
    waiting.delete(id);
    if (--waited.deadline.left === 0) clearTimeout(waited.deadline.timer);
    const { check, phone, lead } = waited;
    if (answer.outcome !== "error" && check.cacheMs > 0 && phone) cache.set(check.cacheKey, phone, answer, check.cacheMs, deps.clock());
    lead.results[waited.at] = { check, answer, source, durationMs: source === "request" ? Math.round(now - waited.startedAt) : 0 };
    if (--lead.left === 0) lead.resolve(lead.results);
    return true;
  }

  function settleAnswers(from: Thread, answers: (number | string)[]) {
    const now = performance.now();
    for (let at = 0; at < answers.length; at += ANSWER_FIELDS) {
      const id = answers[at] as number;
      const outcome = answers[at + 1] as AnsweredOutcome;
      const text = answers[at + 2] as string;
      const answer: CheckAnswer = outcome === "error" ? { outcome, error: text } : { outcome, reason: text };
      if (!settle(id, answer, answers[at + 3] as AnsweredSource, now)) from.overdue.delete(id);
    }
  }

  /** Intake's deadline for a batch's leads on one timeout: those the thread has not answered get a timeout error, and the watchdog waits for the thread's answers. */
  function expire(deadline: Deadline, timeoutMs: number) {
    const now = performance.now();
    const error: CheckAnswer = { outcome: "error", error: timedOut(timeoutMs) };
    const late = deadline.ids.filter((id) => settle(id, error, "request", now));
    if (late.length === 0 || deadline.thread.ended) return;
    for (const id of late) deadline.thread.overdue.add(id);
    setTimeout(() => {
      const unanswered = late.filter((id) => deadline.thread.overdue.has(id)).length;
      if (unanswered > 0)
        ended(deadline.thread, `stuck: ${unanswered} of its check requests unanswered ${stuckGraceMs} ms after their ${timeoutMs} ms timeout`);
    }, stuckGraceMs).unref();
  }

  function flush() {
    const sending = batch;
    batch = null;
    if (sending === null || sending.thread.ended) return;
    const secret = deps.secret();
    const message: ToThread = { kind: "batch", checks: sending.checks, secret: secret === sending.thread.secret ? null : secret, requests: sending.requests };
    sending.thread.secret = secret;
    sending.thread.worker.postMessage(message);
  }

  /** This turn's batch, begun (and its sending set for the turn's end) by its first request. */
  function batchFor(current: Thread): Batch {
    if (batch === null) {
      batch = { thread: current, checks: [], requests: [], startedAt: performance.now(), deadlines: new Map() };
      setImmediate(flush);
    }
    return batch;
  }

  /** The deadline of the batch's leads waiting on `timeoutMs`: a timeout error for each still waiting then. */
  function deadlineFor(gathering: Batch, timeoutMs: number): Deadline {
    let deadline = gathering.deadlines.get(timeoutMs);
    if (deadline === undefined) {
      const created: Deadline = { thread: gathering.thread, ids: [], left: 0 };
      created.timer = setTimeout(() => expire(created, timeoutMs), timeoutMs);
      gathering.deadlines.set(timeoutMs, (deadline = created));
    }
    return deadline;
  }

  function prepare() {
    if (thread === null && restartTimer === undefined && !closed) thread = launch();
  }

  /** A check's result now (cached; no thread), or null once it waits in `lead` at `at`. */
  function ask(check: CompiledCheck, facts: LeadFacts, lead: LeadWait, at: number): CheckResult | null {
    const phone = facts.lead.phoneE164;
    if (check.cacheMs > 0 && phone) {
      const cached = cache.get(check.cacheKey, phone, deps.clock());
      if (cached) return { check, answer: cached, source: "cache", durationMs: 0 };
    }
    prepare();
    const current = thread;
    if (current === null) return { check, answer: { outcome: "error", error: "the checks' thread is restarting" }, source: "request", durationMs: 0 };
    const gathering = batchFor(current);
    let checkId = current.checkIds.get(check);
    if (checkId === undefined) {
      checkId = ++nextCheckId;
      current.checkIds.set(check, checkId);
      gathering.checks.push({ id: checkId, name: check.name, url: check.url, timeoutMs: check.timeoutMs });
    }
    const id = ++nextId;
    gathering.requests.push(id, checkId, JSON.stringify(checkBody(check, facts)));
    const deadline = deadlineFor(gathering, check.timeoutMs);
    deadline.ids.push(id);
    deadline.left++;
    waiting.set(id, { check, phone, startedAt: gathering.startedAt, deadline, lead, at });
    return null;
  }

  function run(checks: readonly CompiledCheck[], facts: LeadFacts): Promise<CheckResult[]> {
    const lead: LeadWait = { results: new Array(checks.length), left: 0, resolve: () => {} };
    for (let at = 0; at < checks.length; at++) {
      const now = ask(checks[at]!, facts, lead, at);
      if (now === null) lead.left++;
      else lead.results[at] = now;
    }
    // Its answers come in a later turn (a message, a timer), by when resolve is this promise's.
    return lead.left === 0 ? Promise.resolve(lead.results) : new Promise((resolve) => (lead.resolve = resolve));
  }

  return {
    run,
    prepare,
    running: () => thread !== null,
    close() {
      closed = true;
      clearTimeout(restartTimer);
      if (thread !== null) ended(thread, "closed");
    },
  };
}
