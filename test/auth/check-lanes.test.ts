// A lane runs `slots` checks at once, keeps at most `maxWaiting` waiting and at most `maxPerGroup`
// places per group; past a limit it says no at once instead of queueing.
import { expect, test } from "bun:test";
import { createLane } from "../../src/auth/check-lanes.ts";

/** A task that runs until `finish()` is called; `started` says whether the lane has begun it. */
function heldTask(result = true) {
  let finish!: () => void;
  const held = { started: false, finish: () => finish() };
  const task = () => {
    held.started = true;
    return new Promise<boolean>((resolve) => (finish = () => resolve(result)));
  };
  return { held, task };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

test("runs `slots` tasks at once; the others wait and start in order as slots free", async () => {
  const lane = createLane({ slots: 2, maxWaiting: 10, maxPerGroup: 10 });
  const tasks = Array.from({ length: 4 }, () => heldTask());
  const runs = tasks.map(({ task }) => lane.tryRun("g", task));
  await settle();
  expect(tasks.map(({ held }) => held.started)).toEqual([true, true, false, false]);
  tasks[1]!.held.finish();
  await settle();
  expect(tasks.map(({ held }) => held.started)).toEqual([true, true, true, false]);
  tasks[0]!.held.finish();
  await settle();
  expect(tasks.map(({ held }) => held.started)).toEqual([true, true, true, true]);
  for (const { held } of tasks) held.finish();
  expect(await Promise.all(runs)).toEqual([true, true, true, true]);
});

test("past `maxWaiting` the answer is null at once, and the task is never run", async () => {
  const lane = createLane({ slots: 1, maxWaiting: 2, maxPerGroup: 10 });
  const running = heldTask();
  lane.tryRun("a", running.task);
  lane.tryRun("b", heldTask().task);
  lane.tryRun("c", heldTask().task);
  const refused = heldTask();
  expect(lane.tryRun("d", refused.task)).toBeNull();
  await settle();
  running.held.finish();
  await settle();
  expect(refused.held.started).toBe(false);
});

test("a group holds at most `maxPerGroup` places, running and waiting; other groups still get in", async () => {
  const lane = createLane({ slots: 1, maxWaiting: 10, maxPerGroup: 2 });
  const first = heldTask();
  expect(lane.tryRun("attacked", first.task)).not.toBeNull();
  expect(lane.tryRun("attacked", heldTask().task)).not.toBeNull();
  expect(lane.tryRun("attacked", heldTask().task)).toBeNull();
  expect(lane.tryRun("other", heldTask().task)).not.toBeNull();
  // A finished task gives its group's place back.
  await settle();
  first.held.finish();
  await settle();
  expect(lane.tryRun("attacked", heldTask().task)).not.toBeNull();
});

test("a task that fails frees its slot and its place", async () => {
  const lane = createLane({ slots: 1, maxWaiting: 0, maxPerGroup: 1 });
  const failing = lane.tryRun("g", () => Promise.reject(new Error("argon2 failed")));
  expect(failing).not.toBeNull();
  await expect(failing!).rejects.toThrow("argon2 failed");
  expect(await lane.tryRun("g", async () => "next")).toBe("next");
});
