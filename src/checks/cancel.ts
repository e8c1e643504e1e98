// How a check request is ended before its answer: its deadline (run.ts) cancels it, and the step it
// is waiting in (the HTTP client's exchange, http-client.ts) ends at once.

/** What a cancelled request rejects with. */
export const cancelledError = (): Error => Object.assign(new Error("aborted"), { code: "ABORT_ERR" });

/** What waits on a Cancel: the request's current step. */
export interface Cancellable {
  cancelled(): void;
}

/**
 * Ends a request before its answer. Not an AbortSignal: an AbortController and a listener added
 * and removed per request were ~6% of the checks' thread's JavaScript samples, ~0.9 µs a request
 * (bench/README.md, "External checks' cost"); here the one step waiting is a field.
 * `signal()` is for the rare wait that needs an AbortSignal (an address lookup).
 */
export class Cancel {
  isCancelled = false;
  waiting: Cancellable | null = null;
  private controller: AbortController | undefined;

  cancel(): void {
    if (this.isCancelled) return;
    this.isCancelled = true;
    this.controller?.abort(cancelledError());
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.cancelled();
  }

  signal(): AbortSignal {
    if (this.controller === undefined) {
      this.controller = new AbortController();
      if (this.isCancelled) this.controller.abort(cancelledError());
    }
    return this.controller.signal;
  }
}
