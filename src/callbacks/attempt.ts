// One delivery attempt of a callback: resolve and check the address (SSRF guard), sign, POST to
// the checked address with a timeout, and report what happened. Never throws: every failure is
// an attempt result to record.
import { callbackHeaders } from "./signature.ts";
import { signingSecretsAt } from "./signing-secrets.ts";
import { pinnedFetchInit } from "./pinned-fetch.ts";
import { parseRetryAfter } from "./backoff.ts";
import type { AttemptRecord, DueCallback } from "../store/callbacks/index.ts";
import { resolveCallbackTarget, type Lookup } from "./ssrf.ts";

export interface AttemptResult extends AttemptRecord {
  /** The wait a 429/503 answer asked for, in ms. */
  retryAfterMs: number | null;
}

export interface AttemptDeps {
  allowPrivate: boolean;
  timeoutMs: number;
  clock: () => number;
  lookup?: Lookup;
}

const EXCERPT_BYTES = 1024;
const EXCERPT_WAIT_MS = 1_000;

/**
 * A signal that aborts after `ms` (or at `abort()`), and `release` to drop its timer once the work
 * is done. AbortSignal.timeout's timer keeps the signal, and through its listeners the request,
 * response and stream of a finished attempt, alive for the whole timeout (bench/README.md, "Memory").
 */
function timeoutSignal(ms: number): { signal: AbortSignal; abort: () => void; release: () => void } {
  const controller = new AbortController();
  const abort = () => controller.abort();
  const timer = setTimeout(abort, ms);
  return { signal: controller.signal, abort, release: () => clearTimeout(timer) };
}

export async function attemptDelivery(callback: DueCallback, deps: AttemptDeps): Promise<AttemptResult> {
  const startedAt = deps.clock();
  const started = performance.now();
  const { signal, abort, release } = timeoutSignal(deps.timeoutMs);
  const result = (fields: Partial<AttemptResult>): AttemptResult => ({
    startedAt,
    durationMs: Math.round(performance.now() - started),
    statusCode: null,
    error: null,
    responseExcerpt: null,
    retryAfterMs: null,
    ...fields,
  });
  try {
    const target = await resolveCallbackTarget(new URL(callback.url), { allowPrivate: deps.allowPrivate, lookup: deps.lookup, signal });
    if (!target.ok) return result({ error: target.error });
    // Which secrets sign is decided now, at the attempt, not at the claim: an overlap ends on time.
    const secret = signingSecretsAt(callback, startedAt);
    const headers = callbackHeaders({ id: callback.id, timestamp: Math.floor(startedAt / 1000), body: callback.payload, secret });
    const pinned = pinnedFetchInit(new URL(callback.url), target, { method: "POST", headers, body: callback.payload, signal });
    const response = await fetch(pinned.url, pinned.init);
    // The status line decides the outcome (2xx within the timeout is delivered); the excerpt is
    // best effort, so a receiver that answers 200 and then stalls its body is not retried: once
    // its wait is over the request is aborted, which ends the body's read.
    const excerptWait = setTimeout(abort, EXCERPT_WAIT_MS);
    const excerpt = await readExcerpt(response)
      .catch(() => null)
      .finally(() => clearTimeout(excerptWait));
    const retryAfterMs = response.status === 429 || response.status === 503 ? parseRetryAfter(response.headers.get("retry-after"), deps.clock()) : null;
    return result({ statusCode: response.status, responseExcerpt: excerpt, retryAfterMs, error: response.ok ? null : `HTTP ${response.status}` });
  } catch (error) {
    return result({ error: signal.aborted ? `Timed out after ${deps.timeoutMs} ms` : describe(error) });
  } finally {
    release();
  }
}

/**
 * The first 1 KiB of the answer; the rest is not read. An answer that declares at most that length
 * (most receivers': "ok", a small JSON) is read whole: a stream reader per attempt cost 40 % more
 * of the client's CPU per request (bench/README.md, issue 30 goal 3). If the request is aborted
 * meanwhile (the excerpt's wait is over), a whole read fails, and a streamed one keeps what came.
 */
async function readExcerpt(response: Response): Promise<string | null> {
  if (!response.body) return null;
  if (Number(response.headers.get("content-length") ?? Number.NaN) <= EXCERPT_BYTES) return (await response.text()) || null;
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < EXCERPT_BYTES) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } catch {
    // Aborted: what arrived is the excerpt.
  }
  await reader.cancel().catch(() => {});
  const text = new TextDecoder().decode(Buffer.concat(chunks).subarray(0, EXCERPT_BYTES));
  return text === "" ? null : text;
}

function describe(error: unknown): string {
  if (error instanceof Error) return (error as { code?: string }).code ? `${(error as { code?: string }).code}: ${error.message}` : error.message;
  return String(error);
}
