// What crosses between the main thread and the worker thread (thread-host.ts, thread.ts). The
// thread's log lines, metric calls and console counts travel together in one ordered stream of
// notes, posted once per turn of the thread's event loop: a log flush the thread asks for comes
// after the lines it covers, and the main thread answers it once its own logger has them out.
import type { Config } from "../config/index.ts";
import type { MetricCall } from "../metrics/forwarded.ts";
import type { OutcomeKind } from "../stats/kinds.ts";
import { TURN_WORDS } from "../db/write-turns.ts";

export type LogLevel = "info" | "warn" | "error";

export type Note =
  | { kind: "log"; level: LogLevel; event: string; fields?: Record<string, unknown> }
  | { kind: "metric"; call: MetricCall }
  | { kind: "tally"; vendorId: string; outcome: OutcomeKind; ms?: number }
  /** The thread waits for `flushed` with this id (Logger.flush: its lines are out before it commits). */
  | { kind: "flush"; id: number };

export type ToThread =
  /** Once, first: the validated config, and HTTP requests in flight and the write turns (Int32s, foregroundCounter). */
  | { kind: "start"; config: Config; foreground: SharedArrayBuffer }
  | { kind: "wake" }
  | { kind: "flushed"; id: number }
  /** Stop claiming, wait for in-flight work within `timeoutMs`, close the connection, answer `stopped`. */
  | { kind: "stop"; timeoutMs: number };

export type FromThread =
  | { kind: "notes"; notes: Note[] }
  | { kind: "started" }
  /** Start-up or a job failed beyond the worker's own handling: the main thread restarts the thread. */
  | { kind: "failed"; error: string }
  | { kind: "stopped"; cutShort: boolean };

/** The index of the requests-in-flight counter in the shared Int32Array. */
export const IN_FLIGHT = 0;

/** The words after it: the turns at SQLite's write lock (db/write-turns.ts). */
export const turnWords = (shared: SharedArrayBuffer) => new Int32Array(shared, Int32Array.BYTES_PER_ELEMENT, TURN_WORDS);

/**
 * A counter of HTTP requests in flight, shared with the worker thread (its foregroundLoad), and the
 * write turns its connection takes with intake's.
 */
export function foregroundCounter() {
  const shared = new SharedArrayBuffer((1 + TURN_WORDS) * Int32Array.BYTES_PER_ELEMENT);
  const counter = new Int32Array(shared);
  return {
    shared,
    turns: turnWords(shared),
    begin: () => Atomics.add(counter, IN_FLIGHT, 1),
    end: () => Atomics.sub(counter, IN_FLIGHT, 1),
  };
}
