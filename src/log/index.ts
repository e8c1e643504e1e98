// Structured logs: one JSON object per line on stdout. Phone numbers are masked; emails and
// passwords are never logged at all.

export type LogLevel = "info" | "error" | "silent";

export interface Logger {
  info(event: string, fields?: Record<string, unknown>): void;
  error(event: string, fields?: Record<string, unknown>): void;
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stdout.write(line)): Logger {
  const emit = (lvl: "info" | "error", event: string, fields: Record<string, unknown> = {}) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), level: lvl, event, ...fields })}\n`);
  return {
    info: level === "info" ? (event, fields) => emit("info", event, fields) : () => {},
    error: level === "silent" ? () => {} : (event, fields) => emit("error", event, fields),
  };
}

/** "+12125550123" → "+1******0123": enough to match a support ticket, not to call. */
export function maskPhone(phone: string): string {
  return phone.length <= 4 ? "****" : `${phone.slice(0, 2)}${"*".repeat(Math.max(0, phone.length - 6))}${phone.slice(-4)}`;
}
