import { expect, test } from "bun:test";
import { backoffMs, startLoop } from "../../src/worker/loop.ts";

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
  await loop.stop(1_000);
});

test("a failing tick is reported; a wake-up does not end the backoff, stop() does", async () => {
  const errors: unknown[] = [];
  let ticks = 0;
  const loop = startLoop(
    async () => {
      ticks++;
      throw new Error("bad row");
    },
    { pollIntervalMs: 60_000, onError: (error) => errors.push(error) },
  );
  await Bun.sleep(20);
  loop.wake();
  await Bun.sleep(20);
  expect([errors.length, ticks]).toEqual([1, 1]);
  await loop.stop(1_000);
  expect(ticks).toBe(1);
});

test("while ticks keep failing the loop backs off, wake-ups do not cut the wait short, and the run is reported once", async () => {
  const errors: unknown[] = [];
  const recovered: number[] = [];
  let failing = true;
  let ticks = 0;
  const loop = startLoop(
    async () => {
      ticks++;
      if (failing) throw Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
      return false;
    },
    { pollIntervalMs: 10, onError: (error) => errors.push(error), onRecovered: (failures) => recovered.push(failures) },
  );
  // Every finished delivery wakes the loop: here every 5 ms for a second.
  const waking = setInterval(() => loop.wake(), 5);
  await Bun.sleep(1_000);
  clearInterval(waking);
  // Backoff 100, 200, 400 ms...: ticks at about 0, 100, 300 and 700 ms.
  expect(ticks).toBeGreaterThanOrEqual(3);
  expect(ticks).toBeLessThanOrEqual(5);
  expect(errors).toHaveLength(1);
  failing = false;
  const failures = ticks;
  await Bun.sleep(900);
  expect(recovered).toEqual([failures]);
  await loop.stop(1_000);
});

test("the backoff starts at the poll interval (at least 100 ms) and doubles to 5 s", () => {
  expect([1, 2, 3, 4, 5, 10].map((n) => backoffMs(1_000, n))).toEqual([1_000, 2_000, 4_000, 5_000, 5_000, 5_000]);
  expect([1, 2, 3].map((n) => backoffMs(10, n))).toEqual([100, 200, 400]);
  expect(backoffMs(60_000, 3)).toBe(60_000);
});

test("stop() ends a sleeping loop promptly and no tick starts afterwards", async () => {
  let ticks = 0;
  const loop = startLoop(async () => (ticks++, false), { pollIntervalMs: 60_000, onError: () => {} });
  await Bun.sleep(10);
  await loop.stop(1_000);
  const after = ticks;
  await Bun.sleep(10);
  expect(ticks).toBe(after);
});
