// What the mock receiver has seen, in arrival order, with each path's attempt count, and a way for
// tests to wait for callbacks instead of polling.
import type { Answer } from "./behaviour.ts";
import type { SignatureCheck } from "./signature.ts";

export interface RecordedCallback {
  /** 1, 2, 3… in arrival order; not reset by clear(), so it stays unique for the receiver's life. */
  seq: number;
  method: string;
  /** The path without the query string; behaviours and attempt counts are keyed by it. */
  path: string;
  /** The query string with its "?", or "". */
  query: string;
  /** Lower-cased names; repeated headers are joined with ", ". */
  headers: Record<string, string>;
  body: string;
  /** The parsed body when it is valid JSON; absent otherwise. */
  json?: unknown;
  receivedAt: string;
  /** 1 for the first request to this path since the last clear, 2 for the second… */
  attempt: number;
  /** null when the receiver knew no secret at the time. */
  signature: SignatureCheck | null;
  /** How the receiver answered (decided on arrival, so hanging and delayed requests show it too). */
  answer: Answer;
}

export type NewCallback = Omit<RecordedCallback, "seq" | "attempt">;

export interface WaitOptions {
  /** Count only callbacks to this path. */
  path?: string;
  /** Give up (reject) after this long; default 15,000 ms (generous: it only delays a failure on a busy machine). */
  timeoutMs?: number;
}

export interface Recorder {
  add(callback: NewCallback): RecordedCallback;
  list(path?: string): RecordedCallback[];
  clear(): number;
  /** Resolves with the matching callbacks once there are at least `count`; rejects on timeout or close. */
  waitFor(count: number, options?: WaitOptions): Promise<RecordedCallback[]>;
  /** Rejects every pending waitFor and clears its timer. */
  close(): void;
}

interface Waiter {
  check(): void;
  fail(error: Error): void;
}

export function createRecorder(maxRecorded: number): Recorder {
  let records: RecordedCallback[] = [];
  let seq = 0;
  const attempts = new Map<string, number>();
  const waiters = new Set<Waiter>();
  const list = (path?: string) => (path === undefined ? [...records] : records.filter((r) => r.path === path));
  const count = (path?: string) => (path === undefined ? records.length : records.reduce((n, r) => (r.path === path ? n + 1 : n), 0));

  return {
    add(callback) {
      const attempt = (attempts.get(callback.path) ?? 0) + 1;
      attempts.set(callback.path, attempt);
      const recorded: RecordedCallback = { seq: ++seq, ...callback, attempt };
      records.push(recorded);
      // A receiver left running under load must not grow without bound: the oldest go first.
      if (records.length > maxRecorded) records.splice(0, records.length - maxRecorded);
      for (const waiter of [...waiters]) waiter.check();
      return recorded;
    },
    list,
    clear() {
      const cleared = records.length;
      records = [];
      attempts.clear();
      return cleared;
    },
    waitFor(wanted, { path, timeoutMs = 15_000 } = {}) {
      return new Promise((resolve, reject) => {
        const waiter: Waiter = {
          check() {
            if (count(path) < wanted) return;
            done();
            resolve(list(path));
          },
          fail(error) {
            done();
            reject(error);
          },
        };
        const timer = setTimeout(() => {
          waiter.fail(new Error(`waited ${timeoutMs} ms for ${wanted} callback(s)${path ? ` to ${path}` : ""}, got ${count(path)}`));
        }, timeoutMs);
        const done = () => {
          clearTimeout(timer);
          waiters.delete(waiter);
        };
        waiters.add(waiter);
        waiter.check();
      });
    },
    close() {
      for (const waiter of [...waiters]) waiter.fail(new Error("mock receiver stopped"));
    },
  };
}
