// A check request's deadline (run.ts): its timers and the cancel that ends it. Each request sent
// has two timers, the guard's slow mark (guard.ts) and its deadline, almost always cancelled by its
// answer: a setTimeout and a clearTimeout each was a measurable share of the checks' thread's CPU
// (bench/README.md, "External checks' cost"). Every timer of one delay falls due in the order it
// was set (all requests of a check share its timeout), so they wait in one queue per delay behind
// one setTimeout for its first: setting a timer links an object in, cancelling clears a field.

/** A timer set by `after`: `cancel` it once its work is done. */
export class Timer {
  next: Timer | null = null;
  constructor(
    readonly queue: Queue,
    readonly due: number,
    public fire: (() => void) | null,
  ) {}

  cancel(): void {
    this.queue.cancel(this);
  }
}

/** The timers of one delay, in the order set (which is the order due). */
class Queue {
  private first: Timer | null = null;
  private last: Timer | null = null;
  /** Timers not yet fired nor cancelled: at none the queue is emptied and its setTimeout cleared. */
  private live = 0;
  private timeout: ReturnType<typeof setTimeout> | undefined;
  private readonly ring = () => this.run();

  constructor(private readonly delayMs: number) {}

  add(fire: () => void): Timer {
    const timer = new Timer(this, performance.now() + this.delayMs, fire);
    if (this.last === null) this.first = timer;
    else this.last.next = timer;
    this.last = timer;
    this.live++;
    this.timeout ??= setTimeout(this.ring, this.delayMs);
    return timer;
  }

  cancel(timer: Timer): void {
    if (timer.fire === null) return;
    timer.fire = null;
    if (--this.live === 0) this.empty();
  }

  private empty(): void {
    clearTimeout(this.timeout);
    this.timeout = undefined;
    this.first = this.last = null;
  }

  /** Fires what is due, drops what was cancelled, and waits for the next live timer. */
  private run(): void {
    this.timeout = undefined;
    const now = performance.now();
    for (let timer = this.first; timer !== null && (timer.fire === null || timer.due <= now); timer = this.first) {
      this.first = timer.next;
      if (this.first === null) this.last = null;
      const fire = timer.fire;
      if (fire === null) continue;
      timer.fire = null;
      this.live--;
      fire();
    }
    if (this.live === 0) {
      this.empty();
      return;
    }
    clearTimeout(this.timeout); // one set by a timer added as another fired: the first may be due sooner
    this.timeout = setTimeout(this.ring, Math.max(1, Math.ceil(this.first!.due - now)));
  }
}

const queues = new Map<number, Queue>();

/** Calls `fire` after `delayMs` (as a setTimeout would, or up to a millisecond later), unless cancelled first. */
export function after(delayMs: number, fire: () => void): Timer {
  let queue = queues.get(delayMs);
  if (queue === undefined) {
    queue = new Queue(delayMs);
    queues.set(delayMs, queue);
  }
  return queue.add(fire);
}

/** What a cancelled request rejects with. */
export const cancelledError = (): Error => Object.assign(new Error("aborted"), { code: "ABORT_ERR" });

/** What waits on a Cancel: the request's current step. */
export interface Cancellable {
  cancelled(): void;
}

/**
 * Ends a request before its answer: its caller's deadline (run.ts). Not an AbortSignal: its
 * controller and a listener added and removed per request were ~6% of the checks' thread's
 * JavaScript samples (bench/README.md, "External checks' cost"); here the one step waiting is a field.
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
