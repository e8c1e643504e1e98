// Opening the database at start, again and again while it refuses (PostgreSQL down, restarting,
// or out of connection slots): the listener is up meanwhile (server.ts), so a load balancer sees
// the instance alive and not ready instead of a process that exits and is restarted in a loop.
import type { Logger } from "../log/index.ts";
import { isDatabaseUnavailable, type ServiceBackend } from "./index.ts";

/** SIGTERM (or SIGINT) came while the service was still waiting for its database. */
export class StartCancelled extends Error {
  constructor() {
    super("start-up cancelled while waiting for the database");
  }
}

/** The wait before attempt `attempt + 1`: 250 ms doubling to 10 s, ±20 % so instances started together spread out. */
export function startupRetryDelayMs(attempt: number, random: () => number = Math.random): number {
  return Math.min(10_000, 250 * 2 ** (attempt - 1)) * (0.8 + 0.4 * random());
}

export interface OpenRetryingOptions {
  log: Logger;
  /** Where the listener answers meanwhile, for the log line. */
  listening: string;
  /** Aborted: stop waiting at once (an attempt under way is closed when it ends). */
  signal?: AbortSignal;
}

/**
 * `open()` until it succeeds. A failure a later attempt may not have (isDatabaseUnavailable) is
 * retried with backoff, each distinct one logged once; any other (a wrong password, no such
 * database, a failed migration) is thrown: waiting would not fix it.
 */
export async function openRetrying(open: () => Promise<ServiceBackend>, options: OpenRetryingOptions): Promise<ServiceBackend> {
  const { log, signal } = options;
  const reported = new Set<string>();
  const since = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      const backend = await untilAborted(open(), signal, (late) => void late.then((opened) => opened.close(Date.now() + 1_000)).catch(() => {}));
      if (attempt > 1) log.info("database_connected", { attempts: attempt, waited_ms: Date.now() - since });
      return backend;
    } catch (error) {
      if (error instanceof StartCancelled || !isDatabaseUnavailable(error)) throw error;
      const text = (error as Error).message ?? String(error);
      if (!reported.has(text)) {
        reported.add(text);
        log.error("database_unavailable", {
          error: text,
          attempt,
          url: options.listening,
          action: "retrying with backoff (at most 10 s apart); meanwhile /healthz answers 200, /readyz and the API 503",
        });
      }
      await untilAborted(Bun.sleep(startupRetryDelayMs(attempt)), signal);
    }
  }
}

/** `work`, or StartCancelled as soon as `signal` aborts; `abandoned` gets the work left behind. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal | undefined, abandoned: (late: Promise<T>) => void = () => {}): Promise<T> {
  if (!signal) return work;
  if (signal.aborted) {
    abandoned(work);
    return Promise.reject(new StartCancelled());
  }
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => {
      abandoned(work);
      reject(new StartCancelled());
    };
    signal.addEventListener("abort", onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
