// A polling loop with an abortable sleep: `tick` runs again at once while it finds work, else
// after the poll interval, or as soon as `wake()` says work has arrived. A failing tick is logged
// and the loop goes on: one bad row never stops the worker.
//
// While ticks fail (a full disk, say) the loop backs off: the poll interval (at least
// MIN_BACKOFF_MS), doubling to MAX_BACKOFF_MS, and wake-ups do not cut that wait short: every
// finished delivery wakes the loop, and on a full disk that made the worker retry (and log) about 15
// times a second. Only the first failure of a run is reported, and its end once.

export interface Loop {
  /** Ends the current sleep early (not a backoff after a failure). */
  wake(): void;
  /**
   * No tick starts after this. Resolves once the running tick (if any) has finished, or after
   * `timeoutMs` (a tick can hang on a dead connection): true if it was still running then.
   */
  stop(timeoutMs: number): Promise<boolean>;
}

export interface LoopOptions {
  pollIntervalMs: number;
  /** The first failure after a success (or at start). */
  onError: (error: unknown) => void;
  /** A tick succeeded after `failures` failed in a row. */
  onRecovered?: (failures: number) => void;
}

const MIN_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

/** The wait after the `failures`-th failure in a row. */
export function backoffMs(pollIntervalMs: number, failures: number): number {
  const first = Math.max(pollIntervalMs, MIN_BACKOFF_MS);
  return Math.max(first, Math.min(MAX_BACKOFF_MS, first * 2 ** (failures - 1)));
}

export function startLoop(tick: () => Promise<boolean>, options: LoopOptions): Loop {
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let wakeRequested = false;
  let failures = 0;

  const sleep = (ms: number, wakeable: boolean) =>
    new Promise<void>((resolve) => {
      if ((wakeable && wakeRequested) || stopped) return resolve();
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = () => (wakeable || stopped) && done();
    });

  const running = (async () => {
    while (!stopped) {
      wakeRequested = false;
      let busy = false;
      try {
        busy = await tick();
        if (failures > 0) options.onRecovered?.(failures);
        failures = 0;
      } catch (error) {
        if (failures++ === 0) options.onError(error);
      }
      if (failures > 0) await sleep(backoffMs(options.pollIntervalMs, failures), false);
      else if (!busy) await sleep(options.pollIntervalMs, true);
    }
  })();

  return {
    wake() {
      wakeRequested = true;
      wakeUp?.();
    },
    stop(timeoutMs) {
      stopped = true;
      wakeUp?.();
      return Promise.race([running.then(() => false), Bun.sleep(timeoutMs).then(() => true)]);
    },
  };
}
