// What the main thread and the portal's thread (thread.ts) say to each other: the main thread hands
// over each /portal request as plain data and gets the answer back as plain data; the thread's log
// lines come back too, to be written by the main thread's logger (one stdout, the tests' sinks).
import type { Config } from "../config/index.ts";

/** A request as the thread rebuilds it: `peer` is the socket's peer (the thread throttles sign-ins by client). */
export interface PlainRequest {
  method: string;
  url: string;
  headers: [string, string][];
  body: Uint8Array | null;
  peer: string | undefined;
  /**
   * The version of the policy in force on the main thread at hand-over: the thread reads the policy
   * again first if its own is older, so a page never shows less than intake already applies.
   */
  policyVersion: number;
}

/** An answer's status, headers and the start of its body (all of it unless the answer says more follows). */
export interface PlainResponse {
  status: number;
  headers: [string, string][];
  body: Uint8Array;
}

/**
 * Main → thread. `start` comes first, once: the configuration as validated at start. A body the
 * thread streams (a CSV export) comes a chunk per `pull`, each read only when the client has taken
 * the one before, as in the same thread; `cancel` when the client went away.
 */
export type ToThread =
  | { kind: "start"; config: Config }
  | { kind: "request"; id: number; request: PlainRequest }
  | { kind: "pull"; id: number }
  | { kind: "cancel"; id: number }
  | { kind: "close" };

/** Thread → main. */
export type FromThread =
  | { kind: "started" }
  | { kind: "startFailed"; error: string }
  /** `end`: the body is all there; else chunks follow, one per pull, the last with `end`. */
  | { kind: "answer"; id: number; response: PlainResponse; end: boolean }
  | { kind: "chunk"; id: number; bytes: Uint8Array; end: boolean }
  | { kind: "log"; level: "info" | "warn" | "error"; event: string; fields?: Record<string, unknown> }
  | { kind: "closed" };
