// The worker on a thread of its own (thread.ts), seen from the main thread as the in-process one
// is (index.ts Worker): wake, stop. Intake's event loop then runs none of the lifecycle's
// JavaScript, and none of its statements: only the notes the thread sends back, applied here (log
// lines to the service's logger, metric calls to its registry, counts to the console's tally).
//
// A thread that dies (an uncaught error, start-up failing) is logged and started again after a
// backoff (1 s, doubling to 30 s), never left silently not deciding. Its claims are a dead
// worker's: their leases expire and the new thread takes them again (docs/architecture.md).
import type { Config } from "../config/index.ts";
import { databaseKind } from "../db/kind.ts";
import { resetWorkerTurn } from "../db/write-turns.ts";
import type { Logger } from "../log/index.ts";
import { applyMetricCalls } from "../metrics/forwarded.ts";
import type { Metrics } from "../metrics/index.ts";
import type { Tally } from "../stats/tally.ts";
import { restartDelayMs } from "../threads/restart.ts";
import type { Worker as LifecycleWorker } from "./index.ts";
import { turnWords, type FromThread, type Note, type ToThread } from "./thread-messages.ts";

export interface ThreadHostDeps {
  config: Config;
  log: Logger;
  metrics: Metrics;
  tally: Tally;
  /** The thread's entry module (resolved by server.ts, as the checkpoint thread's is). */
  threadUrl: URL;
  /** HTTP requests in flight, kept by the main thread (thread-messages.ts foregroundCounter). */
  foreground: SharedArrayBuffer;
}

/**
 * Whether the worker runs on its thread: asked for (--worker-thread), and a database the thread
 * can open a connection of its own to (a file or a server; not a test's stand-in or :memory:).
 */
export function runsInThread(config: Config, standInDatabase: boolean): boolean {
  if (!config.workerThread || standInDatabase) return false;
  return databaseKind(config.databasePath) === "postgres" || !["", ":memory:"].includes(config.databasePath);
}

export function startWorkerThread(deps: ThreadHostDeps): LifecycleWorker {
  const { config, log } = deps;
  let thread: Worker | null = null;
  let stopping = false;
  let failures = 0;
  let restartTimer: Timer | undefined;
  let answerStop: ((cutShort: boolean) => void) | null = null;

  function launch() {
    const started = new Worker(deps.threadUrl.href);
    started.unref();
    thread = started;
    started.onmessage = ({ data }: MessageEvent<FromThread>) => handle(started, data);
    started.onerror = (event) => died(started, event.message);
    started.addEventListener("close", () => died(started, "the thread exited"));
    send({ kind: "start", config, foreground: deps.foreground });
  }

  function send(message: ToThread) {
    thread?.postMessage(message);
  }

  function handle(from: Worker, message: FromThread) {
    if (from !== thread) return;
    switch (message.kind) {
      case "notes":
        return message.notes.forEach(apply);
      case "started":
        log.info("worker_thread_started", failures > 0 ? { after_failures: failures } : undefined);
        failures = 0;
        return;
      case "failed":
        return died(from, message.error);
      case "stopped":
        return answerStop?.(message.cutShort);
    }
  }

  function apply(note: Note) {
    switch (note.kind) {
      case "log":
        return log[note.level](note.event, note.fields);
      case "metric":
        return applyMetricCalls(deps.metrics, [note.call]);
      case "tally":
        return deps.tally.record(note.vendorId, note.outcome, note.ms);
      case "flush":
        log.flush().then(() => send({ kind: "flushed", id: note.id }));
    }
  }

  function died(which: Worker, error: string) {
    if (which !== thread) return;
    thread = null;
    which.terminate();
    // A turn it held would keep intake's batches waiting (for at most write-turns.ts MAX_WAIT_MS each).
    resetWorkerTurn(turnWords(deps.foreground));
    if (stopping) return answerStop?.(true);
    // From 1 s, not at once: its work (decisions, callbacks) can wait a second; a request cannot.
    const delayMs = restartDelayMs(++failures);
    log.error("worker_thread_failed", { error, action: `deciding and delivering stopped; restarting the thread in ${delayMs} ms` });
    restartTimer = setTimeout(launch, delayMs);
  }

  launch();
  return {
    wake: () => send({ kind: "wake" }),
    async stop(timeoutMs) {
      stopping = true;
      clearTimeout(restartTimer);
      const stopped = thread;
      if (!stopped) return false;
      // The thread's own deadline comes first, so its connection is closed by it, not by terminate().
      const answered = new Promise<boolean>((resolve) => (answerStop = resolve));
      send({ kind: "stop", timeoutMs: Math.max(0, timeoutMs - Math.min(500, timeoutMs / 10)) });
      const cutShort = await Promise.race([answered, Bun.sleep(timeoutMs).then(() => true)]);
      thread = null;
      stopped.terminate();
      return cutShort;
    },
  };
}
