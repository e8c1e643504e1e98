// worker.stop(timeoutMs) ends within its timeout even when the worker's pass never does (a query
// stuck on a dead connection, 256 certificate checks): shutdown must not wait on it.
import { expect, test } from "bun:test";
import { defaultConfig } from "../../src/config/index.ts";
import { createLogger } from "../../src/log/index.ts";
import { createMetrics } from "../../src/metrics/index.ts";
import type { Answering, Store } from "../../src/store/index.ts";
import { startWorker } from "../../src/worker/index.ts";

/** Every statement hangs, as on a connection whose server went away without closing it. */
const hangingStore: Store<Answering, "promise"> = { read: () => new Promise(() => {}), write: () => new Promise(() => {}) } as never;

test("stop resolves within its timeout while a pass never ends, and says work was cut short", async () => {
  const worker = startWorker({ config: defaultConfig(), store: hangingStore, log: createLogger("silent"), metrics: createMetrics(), foregroundLoad: () => 0 });
  await Bun.sleep(10); // the first pass is under way, waiting for the store
  const stopping = worker.stop(100);
  const outcome = await Promise.race([stopping, Bun.sleep(5_000).then(() => "still waiting")]);
  expect(outcome).toBe(true);
});
