// A polling loop with an abortable sleep: `tick` runs again at once while it finds work, else
// after the poll interval, or as soon as `wake()` says work has arrived. A failing tick is logged
// and the loop goes on: one bad row never stops the worker.

export interface Loop {
  /** Ends the current sleep early. */
  wake(): void;
  /** Resolves once the running tick (if any) has finished; no tick starts after this. */
  stop(): Promise<void>;
}

export function startLoop(tick: () => Promise<boolean>, options: { pollIntervalMs: number; onError: (error: unknown) => void }): Loop {
  let stopped = false;
  let wakeUp: (() => void) | null = null;
  let wakeRequested = false;

  const sleep = () =>
    new Promise<void>((resolve) => {
      if (wakeRequested || stopped) return resolve();
      const timer = setTimeout(done, options.pollIntervalMs);
      function done() {
        clearTimeout(timer);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
    });

  const running = (async () => {
    while (!stopped) {
      wakeRequested = false;
      let busy = false;
      try {
        busy = await tick();
      } catch (error) {
        options.onError(error);
      }
      if (!busy) await sleep();
    }
  })();

  return {
    wake() {
      wakeRequested = true;
      wakeUp?.();
    },
    async stop() {
      stopped = true;
      wakeUp?.();
      await running;
    },
  };
}
