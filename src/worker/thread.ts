// The worker thread's entry (started by thread-host.ts; listed in package.json's "build" so the
// compiled binary carries it): the same worker (index.ts) as in-process, on a connection of its own
// (backend/worker-connection.ts), so decisions, deliveries and their JavaScript never run on
// intake's event loop. What it shares with the main thread crosses explicitly (thread-messages.ts):
// the config once at start, HTTP requests in flight as a shared counter, wake-ups and stop as
// messages; its log lines, metric calls and console counts go back as notes. The policy in force it
// loads and reloads itself, as every instance does.
import { openWorkerBackend, type WorkerBackend } from "../backend/worker-connection.ts";
import { errorText, type Logger } from "../log/index.ts";
import { forwardedMetrics } from "../metrics/forwarded.ts";
import { loadServicePolicy, type PolicyInForce } from "../policy-in-force/loader.ts";
import type { Tally } from "../stats/tally.ts";
import { startWorker, type Worker as LifecycleWorker } from "./index.ts";
import { IN_FLIGHT, turnWords, type FromThread, type Note, type ToThread } from "./thread-messages.ts";

declare const self: Worker;

const post = (message: FromThread) => self.postMessage(message);

/** Notes posted together at the end of the turn; a flush request goes at once, after them. */
function createOutbox() {
  let notes: Note[] = [];
  let nextFlush = 0;
  const flushes = new Map<number, () => void>();
  const send = () => {
    if (notes.length === 0) return;
    const batch = notes;
    notes = [];
    try {
      post({ kind: "notes", notes: batch });
    } catch {
      // A field that cannot be cloned (a function, say): the lines go as JSON would show them.
      post({ kind: "notes", notes: JSON.parse(JSON.stringify(batch)) });
    }
  };
  return {
    note(note: Note) {
      if (notes.push(note) === 1) setImmediate(send);
    },
    flush(): Promise<void> {
      const id = ++nextFlush;
      notes.push({ kind: "flush", id });
      send();
      return new Promise((resolve) => flushes.set(id, resolve));
    },
    flushed(id: number) {
      flushes.get(id)?.();
      flushes.delete(id);
    },
    send,
  };
}

const outbox = createOutbox();

const log: Logger = {
  info: (event, fields) => outbox.note({ kind: "log", level: "info", event, fields }),
  warn: (event, fields) => outbox.note({ kind: "log", level: "warn", event, fields }),
  error: (event, fields) => outbox.note({ kind: "log", level: "error", event, fields }),
  flush: () => outbox.flush(),
};

/** The console's counts, kept by the main thread's tally. */
const tally: Tally = {
  record: (vendorId, outcome, ms) => outbox.note({ kind: "tally", vendorId, outcome, ms }),
  flush: async () => outbox.send(),
  stop: async () => outbox.send(),
};

interface Running {
  backend: WorkerBackend;
  policy: PolicyInForce;
  worker: LifecycleWorker;
}

let running: Promise<Running | null> = Promise.resolve(null);

async function start(message: Extract<ToThread, { kind: "start" }>): Promise<Running> {
  const { config } = message;
  const inFlight = new Int32Array(message.foreground);
  const foregroundLoad = () => Atomics.load(inFlight, IN_FLIGHT);
  const backend = await openWorkerBackend(config, log, () => foregroundLoad() > 0, turnWords(message.foreground));
  try {
    const policy = await loadServicePolicy(backend.store, config, log);
    const metrics = forwardedMetrics((call) => outbox.note({ kind: "metric", call }));
    const worker = startWorker({ config, store: backend.store, log, metrics, tally, foregroundLoad, batches: backend.workerBatches, policy });
    return { backend, policy, worker };
  } catch (error) {
    await backend.close(Date.now() + 1_000);
    throw error;
  }
}

async function stop(timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  const current = await running.catch(() => null);
  if (!current) return false;
  const cutShort = await current.worker.stop(timeoutMs);
  current.policy.stop();
  await current.backend.close(deadline);
  return cutShort;
}

self.onmessage = ({ data }: MessageEvent<ToThread>) => {
  switch (data.kind) {
    case "start":
      running = start(data);
      running.then(
        () => post({ kind: "started" }),
        (error: unknown) => {
          outbox.send();
          post({ kind: "failed", error: errorText(error) });
        },
      );
      return;
    case "wake":
      running.then(
        (current) => current?.worker.wake(),
        () => {},
      );
      return;
    case "flushed":
      outbox.flushed(data.id);
      return;
    case "stop":
      stop(data.timeoutMs).then(
        (cutShort) => {
          outbox.send();
          post({ kind: "stopped", cutShort });
        },
        (error: unknown) => {
          log.error("shutdown_failed", { error: errorText(error), part: "worker thread" });
          outbox.send();
          post({ kind: "stopped", cutShort: true });
        },
      );
      return;
  }
};
