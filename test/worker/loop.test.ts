import { expect, test } from "bun:test";
import { startLoop } from "../../src/worker/loop.ts";

test("the loop runs again at once while there is work, then sleeps until woken", async () => {
  let work = 3;
  let ticks = 0;
  const loop = startLoop(async () => (ticks++, work-- > 0), { pollIntervalMs: 60_000, onError: () => {} });
  await Bun.sleep(20);
  expect(ticks).toBe(4); // three busy ticks, then one idle tick before sleeping a minute
  work = 1;
  loop.wake();
  await Bun.sleep(20);
  expect(ticks).toBe(6);
  await loop.stop();
});

test("a failing tick is reported; the loop waits out the interval (no hot error loop), then goes on", async () => {
  const errors: unknown[] = [];
  let ticks = 0;
  const loop = startLoop(
    async () => {
      ticks++;
      if (ticks === 1) throw new Error("bad row");
      return ticks < 3;
    },
    { pollIntervalMs: 60_000, onError: (error) => errors.push(error) },
  );
  await Bun.sleep(20);
  expect([errors.length, ticks]).toEqual([1, 1]);
  loop.wake();
  await Bun.sleep(20);
  await loop.stop();
  expect(ticks).toBe(3);
});

test("stop() ends a sleeping loop promptly and no tick starts afterwards", async () => {
  let ticks = 0;
  const loop = startLoop(async () => (ticks++, false), { pollIntervalMs: 60_000, onError: () => {} });
  await Bun.sleep(10);
  await loop.stop();
  const after = ticks;
  await Bun.sleep(10);
  expect(ticks).toBe(after);
});
