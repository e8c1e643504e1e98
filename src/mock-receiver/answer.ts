// Turns an Answer into what Bun.serve sends: a response (perhaps late), nothing at all, or a dropped
// connection. Every wait ends when the client goes away or the receiver stops, so no timer outlives it.
import type { Answer } from "./behaviour.ts";

const NULL_BODY_STATUSES = new Set([204, 205, 304]);

export async function sendAnswer(answer: Answer, cancelSignals: AbortSignal[]): Promise<Response> {
  if (answer.action === "hang") {
    await pause(undefined, cancelSignals);
    return dropConnection();
  }
  if (answer.delayMs > 0) await pause(answer.delayMs, cancelSignals);
  if (answer.action === "close" || cancelSignals.some((signal) => signal.aborted)) return dropConnection();
  const headers = new Headers();
  if (answer.retryAfter !== undefined) headers.set("retry-after", answer.retryAfter);
  if (NULL_BODY_STATUSES.has(answer.status)) return new Response(null, { status: answer.status, headers });
  const body = answer.body ?? JSON.stringify({ mock: "lead-ingress", status: answer.status });
  headers.set("content-type", answer.body === undefined || isJson(body) ? "application/json" : "text/plain; charset=utf-8");
  return new Response(body, { status: answer.status, headers });
}

/**
 * A response whose body stream is already errored: Bun then resets the connection before writing
 * the status line, so the client sees ECONNRESET and not a single byte. The error value is
 * `undefined` on purpose: Bun prints an Error (or a string) to stderr as an unhandled error.
 */
export function dropConnection(): Response {
  return new Response(
    new ReadableStream({
      start(controller) {
        controller.error(undefined);
      },
    }),
  );
}

/** Resolves after `ms` (never, when undefined) or as soon as one of the signals aborts. */
function pause(ms: number | undefined, signals: AbortSignal[]): Promise<void> {
  return new Promise((resolve) => {
    if (signals.some((signal) => signal.aborted)) return resolve();
    const finish = () => {
      clearTimeout(timer);
      for (const signal of signals) signal.removeEventListener("abort", finish);
      resolve();
    };
    const timer = ms === undefined ? undefined : setTimeout(finish, ms);
    for (const signal of signals) signal.addEventListener("abort", finish);
  });
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}
