// The worker thread's metrics (worker/thread.ts): the thread counts through a stand-in with the
// service's metric names whose every call is recorded rather than applied; the records cross to
// the main thread in batches, where they are applied to the service's one registry, so /metrics
// shows a single set of series whichever thread counted.
import type { Metrics } from "./index.ts";

/** One call on a metric: its name in Metrics, the method (inc, observe, show) and its arguments. */
export type MetricCall = [metric: string, method: string, args: unknown[]];

/** Metrics whose calls go to `record` (every metric of Metrics, every method). */
export function forwardedMetrics(record: (call: MetricCall) => void): Metrics {
  const metrics = new Map<string, object>();
  const metric = (name: string) =>
    new Proxy(
      {},
      {
        get:
          (_target, method) =>
          (...args: unknown[]) =>
            record([name, String(method), args]),
      },
    );
  const stand = new Proxy({}, { get: (_target, name) => metrics.get(String(name)) ?? metrics.set(String(name), metric(String(name))).get(String(name)) });
  return stand as Metrics;
}

/** Applies calls recorded by forwardedMetrics to the service's metrics; a name this build lacks is skipped. */
export function applyMetricCalls(metrics: Metrics, calls: MetricCall[]): void {
  const byName = metrics as unknown as Record<string, Record<string, (...args: unknown[]) => void> | undefined>;
  for (const [name, method, args] of calls) byName[name]?.[method]?.(...args);
}
