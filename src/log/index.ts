// Structured logs: one JSON object per line on stdout. Phone numbers are masked; emails and
// passwords are never logged at all.

/** From the most to the least said: each level logs its own lines and those of the levels after it. */
export const LOG_LEVELS = ["info", "warn", "error", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
type LineLevel = Exclude<LogLevel, "silent">;

export interface Logger {
  info(event: string, fields?: Record<string, unknown>): void;
  /** Something went wrong that the service handles (a callback retried): worth a look when it repeats. */
  warn(event: string, fields?: Record<string, unknown>): void;
  /** Something that needs an operator (a dead callback, a storage failure). */
  error(event: string, fields?: Record<string, unknown>): void;
  /**
   * Writes every line logged so far now, and resolves once the operating system has them: a kill -9
   * from then on loses none. The worker awaits it before committing the state its lines report.
   */
  flush(): Promise<void>;
}

/** Where log lines go: `write` may buffer; `flush` writes the buffer out (see Logger.flush). */
export interface LineSink {
  write(line: string): void;
  flush(): Promise<void>;
}

/**
 * Lines written in one turn of the event loop go out in one write at the end of it: a write
 * system call per request line cost about a tenth of intake's CPU. Whatever is buffered is still
 * written when the process exits, after an uncaught exception too; a kill -9 loses the lines of
 * the turn it interrupts, except those already flushed.
 */
export function bufferedStdout(): LineSink {
  let buffer: string[] = [];
  let flushing: Promise<void> | null = null;
  const writeOut = (): Promise<void> => {
    if (buffer.length === 0) return Promise.resolve();
    const text = buffer.join("");
    buffer = [];
    // The callback runs once the kernel has taken all of `text` (it waits while a pipe is full).
    return new Promise((resolve) => process.stdout.write(text, () => resolve()));
  };
  process.on("exit", writeOut);
  return {
    write(line) {
      if (buffer.push(line) === 1) setImmediate(writeOut);
    },
    // Deferred to a microtask, so the lines of many decisions logged in one go share one write.
    flush: () =>
      (flushing ??= Promise.resolve().then(() => {
        flushing = null;
        return writeOut();
      })),
  };
}

/** The current time in ISO 8601, formatted once per millisecond (a request line each is logged). */
function isoTimeNow(): () => string {
  let formattedAt = -1;
  let formatted = "";
  return () => {
    const now = Date.now();
    if (now !== formattedAt) {
      formattedAt = now;
      formatted = new Date(now).toISOString();
    }
    return formatted;
  };
}

/** `sink`: the buffered stdout, or (tests) a function that takes each line as it is logged. */
export function createLogger(level: LogLevel, sink: LineSink | ((line: string) => void) = bufferedStdout()): Logger {
  const { write, flush } = typeof sink === "function" ? { write: sink, flush: () => Promise.resolve() } : sink;
  const time = isoTimeNow();
  const at = (lvl: LineLevel) =>
    LOG_LEVELS.indexOf(lvl) < LOG_LEVELS.indexOf(level)
      ? () => {}
      : (event: string, fields: Record<string, unknown> = {}) => write(`${JSON.stringify({ time: time(), level: lvl, event, ...fields })}\n`);
  return { info: at("info"), warn: at("warn"), error: at("error"), flush };
}

/** An error as a log field: its stack where it has one, else its message, else its text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? (error.stack ?? error.message) : String(error);
}

/** "+12125550123" → "+1******0123": enough to match a support ticket, not to call. */
export function maskPhone(phone: string): string {
  return phone.length <= 4 ? "****" : `${phone.slice(0, 2)}${"*".repeat(Math.max(0, phone.length - 6))}${phone.slice(-4)}`;
}
