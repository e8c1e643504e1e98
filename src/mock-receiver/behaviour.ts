// How the mock receiver answers: a global default plus per-path overrides, so one receiver can play
// a healthy vendor on one path and a broken one on another in the same test.
//
// A behaviour's path is a prefix: "/dead" answers for "/dead" and everything under it ("/dead/x"),
// but not for "/deadline" (prefixes end at a "/"). When several configured paths cover a request,
// the longest one wins, so a specific path can carve an exception out of a broader one; the global
// behaviour applies only where no path covers the request. "/" covers every path.

/** What to do with a request. All fields are optional; `{}` answers 200 at once. */
export interface Behaviour {
  /** The status to answer (200–599). Defaults to 500 when `failFirst` is set, else 200. */
  status?: number;
  /** Misbehave (status, delay, hang, close) for the first N requests to a path, then answer 200 at once. */
  failFirst?: number;
  /** Wait this long before answering (or closing). */
  delayMs?: number;
  /** Never answer: hold the request until the client gives up or the receiver stops. */
  hang?: boolean;
  /** Drop the connection without sending a single byte of an answer. */
  close?: boolean;
  /** Adds a Retry-After header (typically with 429 or 503). */
  retryAfter?: string;
  /** The answer's body; a JSON default when absent. */
  body?: string;
}

/** The decision for one request, made when it arrives (and recorded with it). */
export type Answer =
  | { action: "respond"; status: number; delayMs: number; retryAfter?: string; body?: string }
  | { action: "hang" }
  | { action: "close"; delayMs: number };

export class BehaviourError extends Error {}

export const CONTROL_PREFIX = "/_mock";

const MAX_DELAY_MS = 3_600_000;
const MAX_FAIL_FIRST = 1_000_000;
const MAX_BODY_CHARS = 64 * 1024;
const FIELDS = new Set(["path", "status", "failFirst", "delayMs", "hang", "close", "retryAfter", "body"]);

export function isControlPath(path: string): boolean {
  return path === CONTROL_PREFIX || path.startsWith(`${CONTROL_PREFIX}/`);
}

/** Checks a behaviour as sent to PUT /_mock/behaviour (or setBehaviour); throws BehaviourError. */
export function parseBehaviour(input: unknown): { path?: string; behaviour: Behaviour } {
  if (typeof input !== "object" || input === null || Array.isArray(input)) throw new BehaviourError("behaviour must be a JSON object");
  const fields = input as Record<string, unknown>;
  // Unknown keys are refused so a typo ("failfirst") does not silently mean "answer 200".
  const unknown = Object.keys(fields).filter((key) => !FIELDS.has(key));
  if (unknown.length > 0) throw new BehaviourError(`unknown field(s): ${unknown.join(", ")}`);

  const behaviour: Behaviour = {};
  if (fields.status !== undefined) behaviour.status = integerIn(fields.status, "status", 200, 599);
  if (fields.failFirst !== undefined) behaviour.failFirst = integerIn(fields.failFirst, "failFirst", 0, MAX_FAIL_FIRST);
  if (fields.delayMs !== undefined) behaviour.delayMs = integerIn(fields.delayMs, "delayMs", 0, MAX_DELAY_MS);
  if (fields.hang !== undefined) behaviour.hang = boolean(fields.hang, "hang");
  if (fields.close !== undefined) behaviour.close = boolean(fields.close, "close");
  if (behaviour.hang && behaviour.close) throw new BehaviourError("hang and close cannot both be set");
  if (fields.retryAfter !== undefined) behaviour.retryAfter = retryAfter(fields.retryAfter);
  if (fields.body !== undefined) {
    if (typeof fields.body !== "string" || fields.body.length > MAX_BODY_CHARS)
      throw new BehaviourError(`body must be a string of at most ${MAX_BODY_CHARS} characters`);
    behaviour.body = fields.body;
  }
  if (fields.path === undefined || fields.path === null) return { behaviour };
  if (typeof fields.path !== "string" || !fields.path.startsWith("/")) throw new BehaviourError('path must be a string starting with "/"');
  if (isControlPath(fields.path)) throw new BehaviourError(`path must not be under ${CONTROL_PREFIX}`);
  return { path: fields.path, behaviour };
}

/** The answer to the request numbered `seen` (0-based) that this behaviour has handled on one path. */
export function planAnswer(behaviour: Behaviour | undefined, seen: number): Answer {
  if (!behaviour) return { action: "respond", status: 200, delayMs: 0 };
  const failing = behaviour.failFirst === undefined || seen < behaviour.failFirst;
  if (!failing) return { action: "respond", status: 200, delayMs: 0 };
  const delayMs = behaviour.delayMs ?? 0;
  if (behaviour.hang) return { action: "hang" };
  if (behaviour.close) return { action: "close", delayMs };
  const status = behaviour.status ?? (behaviour.failFirst === undefined ? 200 : 500);
  return { action: "respond", status, delayMs, retryAfter: behaviour.retryAfter, body: behaviour.body };
}

export interface BehaviourTable {
  /** `path` covers itself and everything under it; undefined sets the global behaviour. */
  set(path: string | undefined, behaviour: Behaviour): void;
  /** Forgets one path's behaviour, or every behaviour (the global one too) when no path is given. */
  reset(path?: string): void;
  /** Decides the answer for one request to `path` (longest covering prefix, else global) and counts it against that behaviour's failFirst. */
  next(path: string): Answer;
  describe(): { global: Behaviour | null; paths: Record<string, Behaviour> };
}

interface Entry {
  behaviour: Behaviour;
  /**
   * Requests handled per request path since this behaviour was set: failFirst counts from the moment
   * it is set, and each path under a prefix on its own (as each path under the global behaviour).
   */
  seen: Map<string, number>;
}

export function createBehaviourTable(): BehaviourTable {
  let global: Entry | undefined;
  const byPath = new Map<string, Entry>();
  return {
    set(path, behaviour) {
      const entry = { behaviour, seen: new Map<string, number>() };
      if (path === undefined) global = entry;
      else byPath.set(path, entry);
    },
    reset(path) {
      if (path !== undefined) return void byPath.delete(path);
      global = undefined;
      byPath.clear();
    },
    next(path) {
      const entry = coveringEntry(byPath, path) ?? global;
      if (!entry) return planAnswer(undefined, 0);
      const seen = entry.seen.get(path) ?? 0;
      entry.seen.set(path, seen + 1);
      return planAnswer(entry.behaviour, seen);
    },
    describe() {
      return { global: global?.behaviour ?? null, paths: Object.fromEntries([...byPath].map(([path, entry]) => [path, entry.behaviour])) };
    },
  };
}

/** Does the configured `prefix` cover the request `path`? Prefixes end at a "/" boundary. */
export function pathCovers(prefix: string, path: string): boolean {
  if (!path.startsWith(prefix)) return false;
  return path.length === prefix.length || prefix.endsWith("/") || path[prefix.length] === "/";
}

/** The entry of the longest configured path that covers `path`, if any. */
function coveringEntry(byPath: Map<string, Entry>, path: string): Entry | undefined {
  let best: { prefix: string; entry: Entry } | undefined;
  for (const [prefix, entry] of byPath) {
    if (pathCovers(prefix, path) && (best === undefined || prefix.length > best.prefix.length)) best = { prefix, entry };
  }
  return best?.entry;
}

export function integerIn(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max)
    throw new BehaviourError(`${name} must be an integer from ${min} to ${max}`);
  return value;
}

function boolean(value: unknown, name: string): boolean {
  if (typeof value !== "boolean") throw new BehaviourError(`${name} must be true or false`);
  return value;
}

/** Seconds ("2") or an HTTP date; numbers are accepted and turned into text. */
function retryAfter(value: unknown): string {
  const text = typeof value === "number" && Number.isInteger(value) && value >= 0 ? String(value) : value;
  if (typeof text !== "string" || text.length === 0 || text.length > 64 || /[\r\n]/.test(text))
    throw new BehaviourError('retryAfter must be a short string such as "2"');
  return text;
}
