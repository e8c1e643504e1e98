// Checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that takes
// the WAL past 1,000 pages: the event loop copied about 4 MB into the database file and waited for
// that file's fsync, a few milliseconds every few dozen batches (bench/README.md). Here the
// server's connection turns automatic checkpoints off, and a thread with
// its own connection (checkpoint-thread.ts) checkpoints instead, in two passes:
//  1. after every `everyWrites` writes (or `everyMs` after the last checkpoint, if anything was
//     written), a PASSIVE checkpoint while batches keep committing; it copies what was in the WAL
//     when it began;
//  2. then, with new batches held back (as during a WAL fsync), a second pass copies the rest.
// Only a WAL copied to its end is restarted (overwritten from the start) by the next write. A
// checkpointer beside a writer that never pauses never gets there, and the WAL grows without bound
// (measured), hence the short hold of the second pass.
//
// Crash safety is SQLite's own: a checkpoint fsyncs the database file before it records frames as
// copied, and only then may any writer restart the WAL over them.
//
// Should a pass fail (an error such as SQLITE_FULL on a full disk, the thread's exit, or a pass
// unanswered for a minute), the connection goes back to automatic checkpoints, the error is
// reported once, the thread is stopped, and a new thread tries again after a backoff (1 s, doubling
// to 30 s); its first pass that succeeds takes checkpoints back off the connection and reports the
// recovery. A second pass that takes too long stops holding writes (the WAL is then simply not
// restarted this time). The thread's connection is closed before the thread is terminated: left to
// the thread's teardown, its close was seen to checkpoint and truncate the WAL under the live main
// connection.
import type { Database } from "bun:sqlite";

/** `PRAGMA wal_checkpoint` as answered: was it blocked, frames in the WAL, frames copied. */
export interface PassResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** The thread's requests and answers (checkpoint-thread.ts); `id` pairs them. */
type ThreadMessage = { kind: "checkpoint"; path: string } | { kind: "close" };
export type ThreadRequest = ThreadMessage & { id: number };
export type ThreadReply = { id: number; ok: true; result: PassResult | null } | { id: number; ok: false; error: string };

/** Runs one PASSIVE checkpoint somewhere other than the event loop. */
export type RunPass = () => Promise<PassResult>;

/** Where passes run: the thread's entry module (started at the first checkpoint), or, in tests, a stand-in. */
type PassRunner = { threadUrl: URL } | { runPass: RunPass };

export type CheckpointerOptions = PassRunner & {
  /**
   * Committed writes between checkpoints. The default, 1,000, is about 1,000 WAL pages of intake,
   * SQLite's own cadence: each checkpoint costs two fsyncs per pass, and at 500 writes the second
   * pass's hold came round twice as often.
   */
  everyWrites?: number;
  /**
   * A checkpoint is also due this long after the last one if anything was written since: a
   * write is not a page count, and a few large background writes (a purge of old keys) must not
   * let the WAL grow unchecked. Default 1 s.
   */
  everyMs?: number;
  /** How long the second pass may hold new batches back (default 250 ms). */
  maxHoldMs?: number;
  /** A pass not answered within this is a failure (default 60 s: a WAL left by a crash can be large). */
  passTimeoutMs?: number;
  /** Called at the first failed pass (not again until one succeeds); automatic checkpoints take over meanwhile. */
  onError: (error: Error) => void;
  /** Called when a pass succeeds after a failure. */
  onRecovered?: () => void;
  /** The wait before the first retry after a failure (doubling to RETRY_MAX_MS); default 1 s. */
  retryAfterMs?: number;
  /** Called when the thread is started (at the first checkpoint). */
  onThreadStart?: () => void;
  clock?: () => number;
};

export interface Checkpointer {
  /** Counts a committed batch's writes; starts a checkpoint once one is due. */
  committed(writes: number): void;
  /**
   * Waits (at most `waitMs`) for a checkpoint in flight, closes the thread's connection, stops the
   * thread, and restores automatic checkpoints.
   */
  stop(waitMs?: number): Promise<void>;
}

const AUTOMATIC_CHECKPOINT_PAGES = 1000;
const RETRY_MAX_MS = 30_000;

/**
 * Takes over `sqlite`'s checkpoints. `holdWrites(pass)` must keep new write batches from starting
 * until `pass` settles (the group committer's).
 */
export function createCheckpointer(sqlite: Database, holdWrites: (pass: Promise<unknown>) => void, options: CheckpointerOptions): Checkpointer {
  const { everyWrites = 1_000, everyMs = 1_000, maxHoldMs = 250, passTimeoutMs = 60_000, retryAfterMs = 1_000, onError, clock = Date.now } = options;
  let thread: CheckpointThread | null = null;
  const runPass =
    "runPass" in options ? options.runPass : () => (thread ??= startThread(options.threadUrl, sqlite.filename, passTimeoutMs, options.onThreadStart)).run();
  let writes = 0;
  let lastStarted = clock();
  let inFlight: Promise<void> | null = null;
  let stopped = false;
  /** Passes failed in a row, and when the next may start (after a failure). */
  let failures = 0;
  let retryAt = 0;
  const automaticCheckpoints = (pages: number) => {
    try {
      sqlite.run(`PRAGMA wal_autocheckpoint = ${pages}`);
    } catch {
      // The connection is already closed: nothing left to checkpoint.
    }
  };
  automaticCheckpoints(0);

  async function checkpoint() {
    const first = await runPass();
    succeeded();
    // Blocked (another process is checkpointing), or nothing committed since the pass began: no
    // hold needed. (Its `log` counts the frames there were when it began, so it cannot tell.)
    if (first.busy !== 0 || writes === 0) return;
    writes = 0;
    const second = runPass();
    holdWrites(Promise.race([second, Bun.sleep(maxHoldMs)]));
    await second;
  }

  function succeeded() {
    if (failures === 0) return;
    failures = 0;
    automaticCheckpoints(0);
    options.onRecovered?.();
  }

  async function failed(error: unknown) {
    if (failures++ === 0) {
      onError(error instanceof Error ? error : new Error(String(error)));
      automaticCheckpoints(AUTOMATIC_CHECKPOINT_PAGES);
    }
    retryAt = clock() + Math.min(RETRY_MAX_MS, retryAfterMs * 2 ** (failures - 1));
    await stopThread();
  }

  async function stopThread() {
    const stopping = thread;
    thread = null;
    await stopping?.stop();
  }

  return {
    committed(count) {
      writes += count;
      if (stopped || inFlight) return;
      const now = clock();
      if (now < retryAt || (writes < everyWrites && now - lastStarted < everyMs)) return;
      writes = 0;
      lastStarted = now;
      inFlight = checkpoint()
        .catch(failed)
        .finally(() => (inFlight = null));
    },
    async stop(waitMs = 10_000) {
      stopped = true;
      // A pass still running after that is abandoned: SQLite keeps a checkpoint cut short safe.
      await Promise.race([inFlight, Bun.sleep(waitMs)]);
      automaticCheckpoints(AUTOMATIC_CHECKPOINT_PAGES);
      await stopThread();
    },
  };
}

interface CheckpointThread {
  run: RunPass;
  /** Closes the thread's connection (a terminated thread would leave that to teardown), then ends it. */
  stop(): Promise<void>;
}

const CLOSE_TIMEOUT_MS = 5_000;

/** The worker thread and its one request at a time. */
function startThread(url: URL, path: string, passTimeoutMs: number, onStart?: () => void): CheckpointThread {
  const worker = new Worker(url.href);
  worker.unref();
  onStart?.();
  let broken: Error | null = null;
  let nextId = 0;
  let waiting: { id: number; resolve: (result: PassResult | null) => void; reject: (error: Error) => void; timer: Timer } | null = null;
  const answer = (reply: ThreadReply) => {
    const request = waiting;
    if (!request || request.id !== reply.id) return; // a late answer to a request that timed out
    waiting = null;
    clearTimeout(request.timer);
    if (reply.ok) request.resolve(reply.result);
    else request.reject(new Error(`checkpoint failed: ${reply.error}`));
  };
  const fail = (message: string) => {
    broken ??= new Error(`checkpoint thread failed: ${message}`);
    if (waiting) answer({ id: waiting.id, ok: false, error: message });
  };
  worker.onmessage = ({ data }: MessageEvent<ThreadReply>) => answer(data);
  worker.onerror = (event) => fail(event.message);
  worker.addEventListener("close", () => fail("the thread exited"));
  const request = (message: ThreadMessage, timeoutMs: number) =>
    new Promise<PassResult | null>((resolve, reject) => {
      if (broken) return reject(broken);
      const id = ++nextId;
      const timer = setTimeout(() => answer({ id, ok: false, error: `no answer within ${timeoutMs} ms` }), timeoutMs);
      waiting = { id, resolve, reject, timer };
      worker.postMessage({ ...message, id });
    });
  return {
    run: async () => (await request({ kind: "checkpoint", path }, passTimeoutMs))!,
    async stop() {
      await request({ kind: "close" }, Math.min(CLOSE_TIMEOUT_MS, passTimeoutMs)).catch(() => {});
      worker.terminate();
    },
  };
}
