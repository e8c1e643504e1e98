// What every instance keeps in memory from the shared database and reloads every second (vendors'
// credentials, the policy in force): one loop for both. A chain of timeouts, not an interval, so a
// slow reload never overlaps the next; a failed one keeps what was loaded and is reported once per
// run of failures (the database's own outage already makes intake answer 503).

/** Runs `load` every `everyMs` until `stop`. */
export function reloadEvery(load: () => Promise<void>, everyMs: number, onError?: (error: unknown) => void): { stop(): void } {
  let failing = false;
  let stopped = false;
  let timer: Timer | undefined;
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(async () => {
      try {
        await load();
        failing = false;
      } catch (error) {
        if (!failing) onError?.(error);
        failing = true;
      }
      schedule();
    }, everyMs);
  };
  schedule();
  return {
    stop() {
      stopped = true;
      clearTimeout(timer);
    },
  };
}
