// A case's callback: wait for it at the mock receiver, then judge body, headers and signature.
import type { RecordedCallback } from "../mock-receiver/index.ts";
import type { CallbackExpectation, Json } from "./fixture.ts";
import { findHeaderMismatch, findMismatch, show } from "./match.ts";
import type { ReceiverClient } from "./receiver.ts";

const CALLBACK_POLL_MS = 100;

/** Polls the receiver until `count` callbacks reached `path`, or the timeout; returns what came. */
export async function waitForCallbacks(receiver: ReceiverClient, path: string, count: number, timeoutMs: number): Promise<RecordedCallback[]> {
  const deadline = performance.now() + timeoutMs;
  const maxPolls = Math.ceil(timeoutMs / CALLBACK_POLL_MS) + 1;
  let received: RecordedCallback[] = [];
  for (let poll = 0; poll < maxPolls; poll++) {
    received = await receiver.callbacks(path);
    if (received.length >= count || performance.now() >= deadline) break;
    await Bun.sleep(CALLBACK_POLL_MS);
  }
  return received;
}

/** Every delivery must match, and retries must carry the first one's webhook-id (docs/contract.md §8). */
export function checkCallbacks(expect: CallbackExpectation, callbacks: RecordedCallback[]): string | null {
  for (const [i, callback] of callbacks.entries()) {
    const mismatch = checkCallback(expect, callback);
    if (mismatch) return callbacks.length > 1 ? `delivery ${i + 1}: ${mismatch}` : mismatch;
  }
  const ids = new Set(callbacks.map((callback) => callback.headers["webhook-id"]));
  return ids.size > 1 ? `callback: retries carry different webhook-ids: ${[...ids].join(", ")}` : null;
}

export function checkCallback(expect: CallbackExpectation, callback: RecordedCallback): string | null {
  if (callback.json === undefined) return `callback: body is not JSON: ${callback.body.slice(0, 160)}`;
  if (expect.headers) {
    const mismatch = findHeaderMismatch(expect.headers, (name) => callback.headers[name], "callback header");
    if (mismatch) return mismatch;
  }
  if (expect.signature === "valid") {
    if (callback.signature === null)
      return "callback signature: the receiver checked none (give it the vendor's signing secret: mock-receiver --secret, or replay --receiver-secret)";
    if (!callback.signature.valid) return `callback signature: not valid: ${callback.signature.error ?? "no reason given"}`;
  }
  const mismatch = findMismatch(expect.body, callback.json, "callback");
  if (mismatch === null) return null;
  const reasons = unexpectedRejection(expect.body, callback.json);
  return reasons === null ? mismatch : `${mismatch}; the callback rejected the lead: ${reasons}`;
}

/**
 * A rejected callback's reasons (its `message` errors), when the case expected an acceptance or
 * other reasons: "success_bit: expected true, got false" alone does not say why the service refused.
 */
export function unexpectedRejection(expected: Json, actual: unknown): string | null {
  if (typeof actual !== "object" || actual === null || Array.isArray(actual)) return null;
  const { status, message } = actual as Record<string, unknown>;
  if (status !== "rejected") return null;
  const wanted = typeof expected === "object" && expected !== null && !Array.isArray(expected) ? expected.message : undefined;
  if (wanted !== undefined && findMismatch(wanted, message) === null) return null;
  const errors = Array.isArray(message) ? message.map((item) => (item as { error?: unknown } | null)?.error ?? item) : [message];
  return errors.map((error) => show(error)).join(", ");
}
