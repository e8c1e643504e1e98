// The portal on a thread of its own (docs/architecture.md, "Off intake's thread: the portal"). On
// SQLite every read is synchronous, so a page's queries and its rendering, on the thread that
// answers intake, stalled every postLead that arrived meanwhile (bench/README.md, "The portal under
// load"). Here the main thread hands each /portal request, as plain data, to a Bun Worker
// (thread.ts) that has its own connections and runs the portal's handler, and answers with what
// the thread answers; a streamed body (a CSV export) comes a chunk per pull, as the client takes it.
//
// The thread is started by the first /portal request, which waits for it (as do any arriving
// meanwhile: one start for them all): a server whose vendors never open the portal pays no thread,
// heap or connections for it (bench/README.md, "Memory"). A start that fails, or does not finish
// within START_TIMEOUT_MS, answers its requests 503, and the next request tries again.
//
// A thread that ends, fails or leaves a request unanswered for ANSWER_TIMEOUT_MS is reported, its
// requests are answered 503, and another is started (at once, then after 1 s, doubling to 30 s
// while starting keeps failing); meanwhile /portal answers 503.
import type { Config } from "../config/index.ts";
import { problemBox, SECURITY_HEADERS } from "../console/page.ts";
import type { Logger } from "../log/index.ts";
import { portalPage } from "../portal/page.ts";
import { bodyStart, FORM_LIMIT_BYTES } from "../web/forms.ts";
import { restartDelayMs } from "../threads/restart.ts";
import type { FromThread, ToThread } from "./protocol.ts";

export interface PortalThreadOptions {
  config: Config;
  log: Logger;
  /** The thread's entry module, thread.ts (resolved by server.ts, as the checkpointer's); tests pass a stand-in. */
  threadUrl: URL;
  /** The version of the policy intake applies now (policy-in-force/loader.ts): the thread follows it. */
  policyVersion: () => number;
  /** A request unanswered this long means the thread is stuck (default ANSWER_TIMEOUT_MS). */
  answerTimeoutMs?: number;
  /** A start not done this long has failed (default START_TIMEOUT_MS). */
  startTimeoutMs?: number;
}

export interface PortalThread {
  /** The answer to a request under /portal; `peer`: its socket's peer address. */
  handle(request: Request, peer: string | undefined): Promise<Response>;
  /** Whether a thread is up or starting: none until the first request. */
  running(): boolean;
  /** Closes the thread's connections and ends it (one starting: once started): within `waitMs`, then it is terminated. */
  stop(waitMs: number): Promise<void>;
}

/** A page takes milliseconds; a test callback at most the callback timeout. Longer: the thread is stuck. */
const ANSWER_TIMEOUT_MS = 60_000;
/** Opening its connections takes milliseconds; on PostgreSQL it gives up after DATABASE_WAIT_MS (5 s). */
const START_TIMEOUT_MS = 10_000;

/** What a request or a pull is answered with; null: the thread ended first. */
type Reply = Extract<FromThread, { kind: "answer" | "chunk" }>;

interface Thread {
  worker: Worker;
  /** Resolves when it says it has started; rejects, saying why, when it cannot. */
  started: Promise<void>;
  up: boolean;
  /** Requests and pulls waiting for the thread's reply, by request id. */
  waiting: Map<number, { receive: (reply: Reply | null) => void; timer: Timer }>;
  ended: boolean;
  /** It said its connections are closed. */
  closed: PromiseWithResolvers<void>;
  /** It has exited. */
  exited: PromiseWithResolvers<void>;
}

/** The portal's thread, started by the first request that needs it. */
export function lazyPortalThread(options: PortalThreadOptions): PortalThread {
  const { log, answerTimeoutMs = ANSWER_TIMEOUT_MS } = options;
  /** The thread up or starting; null before the first request, after a failure, at stop. */
  let current: Thread | null = null;
  let stopping = false;
  let failedStarts = 0;
  /** Set while a restart waits its turn: requests are answered 503 meanwhile rather than start one. */
  let restartTimer: Timer | undefined;
  let nextId = 0;

  /** The thread failed (`reason`): its requests get 503, and another one starts. */
  function ended(thread: Thread, reason: string) {
    if (thread.ended) return;
    thread.ended = true;
    for (const { receive, timer } of thread.waiting.values()) {
      clearTimeout(timer);
      receive(null);
    }
    thread.worker.terminate();
    if (current !== thread || stopping) return;
    current = null;
    // A start that failed is reported by launch.
    if (!thread.up) return;
    log.error("portal_thread_failed", { error: reason, action: "its requests answered 503; starting another" });
    scheduleRestart();
  }

  /** At once after a thread that ran; after 1 s, doubling to 30 s, while starting keeps failing. */
  function scheduleRestart() {
    const afterMs = restartDelayMs(failedStarts);
    restartTimer = setTimeout(() => {
      restartTimer = undefined;
      launch(true);
    }, afterMs);
  }

  /** Starts a thread; `restart`: replacing one that failed, and retried on a timer while it cannot start. */
  function launch(restart: boolean): Thread {
    const thread = startThread(options, ended);
    current = thread;
    thread.started.then(
      () => {
        failedStarts = 0;
        if (restart) log.info("portal_thread_restarted");
      },
      (error: Error) => {
        if (current === thread) current = null;
        if (stopping) return;
        failedStarts++;
        log.error("portal_thread_failed", { error: error.message, action: restart ? "retrying" : "its requests answered 503; the next one starts another" });
        if (restart) scheduleRestart();
      },
    );
    return thread;
  }

  /** Sends `message` (a request or a pull) and waits for the reply to `id`. */
  function ask(thread: Thread, id: number, message: ToThread): Promise<Reply | null> {
    if (thread.ended) return Promise.resolve(null);
    return new Promise((receive) => {
      const timer = setTimeout(() => ended(thread, `no answer within ${answerTimeoutMs} ms`), answerTimeoutMs);
      thread.waiting.set(id, { receive, timer });
      thread.worker.postMessage(message);
    });
  }

  /** A body the thread streams: each chunk asked for when the client has taken the one before. */
  function streamed(thread: Thread, id: number, first: Uint8Array): ReadableStream<Uint8Array> {
    return new ReadableStream({
      start: (controller) => controller.enqueue(first),
      async pull(controller) {
        const reply = await ask(thread, id, { kind: "pull", id });
        if (reply?.kind !== "chunk") return controller.error(new Error("the portal's thread ended during the answer"));
        if (reply.bytes.byteLength > 0) controller.enqueue(reply.bytes);
        if (reply.end) controller.close();
      },
      cancel: () => thread.worker.postMessage({ kind: "cancel", id } satisfies ToThread),
    });
  }

  return {
    async handle(request, peer) {
      const body = request.body ? await bodyStart(request, FORM_LIMIT_BYTES) : null;
      const thread = current ?? (stopping || restartTimer ? null : launch(false));
      if (!thread || !(await hasStarted(thread))) return unavailable();
      const id = ++nextId;
      const plain = { method: request.method, url: request.url, headers: [...request.headers], body, peer, policyVersion: options.policyVersion() };
      const reply = await ask(thread, id, { kind: "request", id, request: plain });
      if (reply?.kind !== "answer") return unavailable();
      const { status, headers, body: start } = reply.response;
      // A 204 or 304 must have no body, not an empty one.
      const content = !reply.end ? streamed(thread, id, start) : start.byteLength > 0 ? start : null;
      return new Response(content, { status, headers });
    },
    running: () => current !== null,
    async stop(waitMs) {
      stopping = true;
      clearTimeout(restartTimer);
      const thread = current;
      current = null;
      if (!thread) return;
      await closeThread(thread, waitMs);
      // A download still streaming ends now rather than at its pull's timeout.
      ended(thread, "stopped");
    },
  };
}

/** A new thread, told to start (its `started` says when it has, or why it cannot). */
function startThread(options: PortalThreadOptions, ended: (thread: Thread, reason: string) => void): Thread {
  const worker = new Worker(options.threadUrl.href);
  // The listener keeps the process alive; a thread left running must not.
  worker.unref();
  const started = Promise.withResolvers<void>();
  const thread: Thread = {
    worker,
    started: started.promise,
    up: false,
    waiting: new Map(),
    ended: false,
    closed: Promise.withResolvers(),
    exited: Promise.withResolvers(),
  };
  const startTimeoutMs = options.startTimeoutMs ?? START_TIMEOUT_MS;
  const tooLong = setTimeout(() => failed(`not started within ${startTimeoutMs} ms`), startTimeoutMs);
  worker.onmessage = ({ data }: MessageEvent<FromThread>) => {
    switch (data.kind) {
      case "started":
        clearTimeout(tooLong);
        thread.up = true;
        return started.resolve();
      case "startFailed":
        worker.terminate();
        return started.reject(new Error(`the portal's thread could not start: ${data.error}`));
      case "answer":
      case "chunk": {
        const waiting = thread.waiting.get(data.id);
        if (!waiting) return;
        thread.waiting.delete(data.id);
        clearTimeout(waiting.timer);
        return waiting.receive(data);
      }
      case "log":
        return options.log[data.level](data.event, data.fields);
      case "closed":
        return thread.closed.resolve();
    }
  };
  const failed = (reason: string) => {
    clearTimeout(tooLong);
    started.reject(new Error(`the portal's thread could not start: ${reason}`));
    thread.closed.resolve();
    ended(thread, reason);
  };
  worker.onerror = (event) => failed(event.message);
  worker.addEventListener("close", () => {
    thread.exited.resolve();
    failed("the thread exited");
  });
  const start: ToThread = { kind: "start", config: options.config };
  worker.postMessage(start);
  return thread;
}

/** Whether the thread started (it may still be starting: then once it has, or has failed to). */
function hasStarted(thread: Thread): Promise<boolean> {
  return thread.started.then(
    () => true,
    () => false,
  );
}

/**
 * Lets a start under way finish, asks the thread to close its connections, ends it, and waits
 * until it has exited (all within `waitMs`). bun:sqlite leaves a connection with prepared
 * statements open until they are collected: here at the thread's exit, which must come while the
 * service's connection is still open, or that last close checkpoints the WAL while the process exits.
 */
async function closeThread(thread: Thread, waitMs: number): Promise<void> {
  const deadline = Date.now() + waitMs;
  const until = async (done: Promise<void>) => {
    let timer: Timer | undefined;
    await Promise.race([done, new Promise((resolve) => (timer = setTimeout(resolve, Math.max(0, deadline - Date.now()))))]);
    clearTimeout(timer);
  };
  // One still starting closes what it opened, not midway.
  await until(hasStarted(thread).then(() => {}));
  thread.worker.postMessage({ kind: "close" } satisfies ToThread);
  await until(thread.closed.promise);
  thread.worker.terminate();
  await until(thread.exited.promise);
}

/** /portal while its thread is being started (again), or could not be. */
function unavailable(): Response {
  const response = portalPage("Refused", null, problemBox("The portal is starting; try again shortly."), 503, { "retry-after": "1" });
  for (const [name, value] of Object.entries(SECURITY_HEADERS)) response.headers.set(name, value);
  return response;
}
