// The checks' timers (src/checks/timers.ts): one queue per delay behind one setTimeout, each timer
// firing after its delay unless cancelled, whatever else the queue holds.
import { expect, test } from "bun:test";
import { after } from "../../src/checks/deadline.ts";

test("each timer fires once after its delay, in the order set; a cancelled one never fires", async () => {
  const fired: [string, number][] = [];
  const started = performance.now();
  const mark = (name: string) => () => fired.push([name, performance.now() - started]);
  after(40, mark("a"));
  const cancelled = after(40, mark("b"));
  await Bun.sleep(10);
  after(40, mark("c"));
  cancelled.cancel();
  await Bun.sleep(80);
  expect(fired.map(([name]) => name)).toEqual(["a", "c"]);
  expect(fired[0]![1]).toBeGreaterThanOrEqual(39);
  expect(fired[1]![1]).toBeGreaterThanOrEqual(49);
});

test("a timer behind cancelled ones still fires at its own time; timers of other delays keep theirs", async () => {
  const fired: string[] = [];
  const started = performance.now();
  let lateAt = 0;
  const first = after(30, () => fired.push("first"));
  await Bun.sleep(15);
  after(30, () => {
    fired.push("second");
    lateAt = performance.now() - started;
  });
  after(5, () => fired.push("short"));
  first.cancel();
  await Bun.sleep(60);
  expect(fired).toEqual(["short", "second"]);
  expect(lateAt).toBeGreaterThanOrEqual(44);
  expect(lateAt).toBeLessThan(200);
});

test("a timer set while another of its delay fires, and one set after all were cancelled, fire at their time", async () => {
  const fired: string[] = [];
  after(20, () => {
    fired.push("outer");
    after(20, () => fired.push("inner"));
  });
  after(20, () => {}).cancel();
  await Bun.sleep(70);
  expect(fired).toEqual(["outer", "inner"]);
  const alone = after(20, () => fired.push("cancelled"));
  alone.cancel();
  alone.cancel();
  after(20, () => fired.push("after"));
  await Bun.sleep(50);
  expect(fired).toEqual(["outer", "inner", "after"]);
});
