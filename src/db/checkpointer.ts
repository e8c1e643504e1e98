// Checkpoints off the event loop. SQLite's automatic checkpoint runs inside the COMMIT that takes
// the WAL past 1,000 pages: the event loop copied about 4 MB into the database file and waited for
// that file's fsync, a few milliseconds every few dozen batches (5-9 µs per accepted lead, more on
// a large file). Here the server's connection turns automatic checkpoints off, and a thread with
// its own connection (checkpoint-thread.ts) checkpoints instead, in two passes:
//  1. after every `everyWrites` writes, a PASSIVE checkpoint while batches keep committing; it
//     copies what was in the WAL when it began;
//  2. then, with new batches held back (as during a WAL fsync), a second pass copies the rest.
// Only a WAL copied to its end is restarted (overwritten from the start) by the next write. A
// checkpointer beside a writer that never pauses never gets there, and the WAL grows without bound
// (measured), hence the short hold of the second pass.
//
// Crash safety is SQLite's own: a checkpoint fsyncs the database file before it records frames as
// copied, and only then may any writer restart the WAL over them.
//
// Should the thread fail, the connection goes back to automatic checkpoints and the error is
// reported once. A second pass that takes too long stops holding writes (the WAL is then simply
// not restarted this time).
import type { Database } from "bun:sqlite";

/** `PRAGMA wal_checkpoint` as answered: was it blocked, frames in the WAL, frames copied. */
export interface PassResult {
  busy: number;
  log: number;
  checkpointed: number;
}

/** What the thread answers to one request. */
export type PassReply = { ok: true; result: PassResult } | { ok: false; error: string };

/** Runs one PASSIVE checkpoint somewhere other than the event loop. */
export type RunPass = () => Promise<PassResult>;

/** Where passes run: the thread's entry module (started at the first checkpoint), or, in tests, a stand-in. */
type PassRunner = { threadUrl: URL } | { runPass: RunPass };

export type CheckpointerOptions = PassRunner & {
  /**
   * Committed writes between checkpoints. The default, 1,000, is about 1,200 WAL pages of intake,
   * near SQLite's own 1,000: each checkpoint costs two fsyncs per pass, and at 500 writes the
   * second pass's hold came round twice as often.
   */
  everyWrites?: number;
  /** How long the second pass may hold new batches back (default 250 ms). */
  maxHoldMs?: number;
  /** Called once if checkpointing off the loop fails; automatic checkpoints take over. */
  onError: (error: Error) => void;
};

export interface Checkpointer {
  /** Counts a committed batch's writes; starts a checkpoint once enough have gone by. */
  committed(writes: number): void;
  /** Waits for a checkpoint in flight, stops the thread, and restores automatic checkpoints. */
  stop(): Promise<void>;
}

const AUTOMATIC_CHECKPOINT_PAGES = 1000;

/**
 * Takes over `sqlite`'s checkpoints. `holdWrites(pass)` must keep new write batches from starting
 * until `pass` settles (the group committer's).
 */
export function createCheckpointer(sqlite: Database, holdWrites: (pass: Promise<unknown>) => void, options: CheckpointerOptions): Checkpointer {
  const { everyWrites = 1_000, maxHoldMs = 250, onError } = options;
  let thread: CheckpointThread | null = null;
  const runPass = "runPass" in options ? options.runPass : () => (thread ??= startThread(options.threadUrl, sqlite.filename)).run();
  let writes = 0;
  let inFlight: Promise<void> | null = null;
  let stopped = false;
  sqlite.run("PRAGMA wal_autocheckpoint = 0");

  async function checkpoint() {
    const first = await runPass();
    // Blocked (another process is checkpointing), or nothing committed since the pass began: no
    // hold needed. (Its `log` counts the frames there were when it began, so it cannot tell.)
    if (first.busy !== 0 || writes === 0) return;
    writes = 0;
    const second = runPass();
    holdWrites(Promise.race([second, Bun.sleep(maxHoldMs)]));
    await second;
  }

  function giveBack() {
    stopped = true;
    thread?.stop();
    try {
      sqlite.run(`PRAGMA wal_autocheckpoint = ${AUTOMATIC_CHECKPOINT_PAGES}`);
    } catch {
      // The connection is already closed: nothing left to checkpoint.
    }
  }

  return {
    committed(count) {
      writes += count;
      if (stopped || inFlight || writes < everyWrites) return;
      writes = 0;
      inFlight = checkpoint()
        .catch((error) => {
          giveBack();
          onError(error instanceof Error ? error : new Error(String(error)));
        })
        .finally(() => (inFlight = null));
    },
    async stop() {
      stopped = true;
      await inFlight;
      giveBack();
    },
  };
}

interface CheckpointThread {
  run: RunPass;
  stop(): void;
}

/** The worker thread and its one request at a time. */
function startThread(url: URL, path: string): CheckpointThread {
  const worker = new Worker(url.href);
  worker.unref();
  let broken: Error | null = null;
  let waiting: { resolve: (result: PassResult) => void; reject: (error: Error) => void } | null = null;
  const answer = (reply: PassReply) => {
    const request = waiting;
    waiting = null;
    if (reply.ok) request?.resolve(reply.result);
    else request?.reject(new Error(`checkpoint failed: ${reply.error}`));
  };
  worker.onmessage = ({ data }: MessageEvent<PassReply>) => answer(data);
  worker.onerror = (event) => {
    broken = new Error(`checkpoint thread failed: ${event.message}`);
    answer({ ok: false, error: event.message });
  };
  return {
    run: () =>
      new Promise((resolve, reject) => {
        if (broken) return reject(broken);
        waiting = { resolve, reject };
        worker.postMessage(path);
      }),
    stop: () => worker.terminate(),
  };
}
