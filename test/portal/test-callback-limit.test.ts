// The portal's limit on test callbacks (src/portal/test-callback-limit.ts) with a fake clock: a
// budget of `count` at once that comes back over the window, one in flight per vendor, each vendor
// on its own, and memory that forgets vendors who stopped testing.
import { describe, expect, test } from "bun:test";
import { createTestCallbackLimit } from "../../src/portal/test-callback-limit.ts";
import { fakeClock } from "../helpers/clock.ts";

/** A send that resolves when told to, and says whether it ran. */
function heldSend() {
  let release!: () => void;
  const done = new Promise<void>((resolve) => (release = resolve));
  const held = { ran: false, release, send: async () => ((held.ran = true), await done, "answered") };
  return held;
}

const instant = async () => "answered";

describe("createTestCallbackLimit", () => {
  test("count at once, then refused with the seconds until one comes back; nothing run when refused", async () => {
    const clock = fakeClock();
    const limit = createTestCallbackLimit({ count: 10, windowMs: 60_000 }, clock.now);
    for (let i = 0; i < 10; i++) expect(await limit.send("acme", instant)).toEqual({ sent: "answered" });
    let ran = false;
    expect(await limit.send("acme", async () => ((ran = true), "answered"))).toEqual({ refused: "budget", waitSeconds: 6 });
    expect(ran).toBe(false);
  });

  test("they come back evenly over the window: one every window/count, all of them after the window", async () => {
    const clock = fakeClock();
    const limit = createTestCallbackLimit({ count: 10, windowMs: 60_000 }, clock.now);
    for (let i = 0; i < 10; i++) await limit.send("acme", instant);
    clock.advance(5_000);
    expect(await limit.send("acme", instant)).toEqual({ refused: "budget", waitSeconds: 1 });
    clock.advance(1_000);
    expect(await limit.send("acme", instant)).toEqual({ sent: "answered" });
    expect(await limit.send("acme", instant)).toEqual({ refused: "budget", waitSeconds: 6 });
    clock.advance(60_000);
    for (let i = 0; i < 10; i++) expect(await limit.send("acme", instant)).toEqual({ sent: "answered" });
    expect(Object.hasOwn(await limit.send("acme", instant), "refused")).toBe(true);
  });

  test("one in flight per vendor: a second while the first is out is refused and not run", async () => {
    const limit = createTestCallbackLimit({ count: 10, windowMs: 60_000 }, fakeClock().now);
    const first = heldSend();
    const sending = limit.send("acme", first.send);
    const second = heldSend();
    expect(await limit.send("acme", second.send)).toEqual({ refused: "in flight" });
    expect(second.ran).toBe(false);
    first.release();
    expect(await sending).toEqual({ sent: "answered" });
    expect(await limit.send("acme", instant)).toEqual({ sent: "answered" });
  });

  test("a refusal for one in flight spends none of the budget", async () => {
    const limit = createTestCallbackLimit({ count: 2, windowMs: 60_000 }, fakeClock().now);
    const first = heldSend();
    const sending = limit.send("acme", first.send);
    for (let i = 0; i < 5; i++) expect(await limit.send("acme", instant)).toEqual({ refused: "in flight" });
    first.release();
    await sending;
    expect(await limit.send("acme", instant)).toEqual({ sent: "answered" });
  });

  test("a send that fails frees its place (the error is the caller's)", async () => {
    const limit = createTestCallbackLimit({ count: 10, windowMs: 60_000 }, fakeClock().now);
    await expect(limit.send("acme", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limit.send("acme", instant)).toEqual({ sent: "answered" });
  });

  test("each vendor has its own budget and its own place in flight", async () => {
    const limit = createTestCallbackLimit({ count: 3, windowMs: 60_000 }, fakeClock().now);
    for (let i = 0; i < 3; i++) await limit.send("acme", instant);
    expect(await limit.send("acme", instant)).toMatchObject({ refused: "budget" });
    const held = heldSend();
    const sending = limit.send("bravo", held.send);
    expect(await limit.send("charlie", instant)).toEqual({ sent: "answered" });
    expect(await limit.send("bravo", instant)).toEqual({ refused: "in flight" });
    held.release();
    expect(await sending).toEqual({ sent: "answered" });
  });

  test("memory: vendors who stopped testing are forgotten once their budget is full again", async () => {
    const clock = fakeClock();
    const limit = createTestCallbackLimit({ count: 10, windowMs: 60_000 }, clock.now);
    for (let i = 0; i < 500; i++) await limit.send(`vendor-${i}`, instant);
    const held = heldSend();
    const sending = limit.send("still-testing", held.send);
    expect(limit.size()).toBe(502); // 501 budgets drawn and one send in flight
    clock.advance(60_000);
    expect(await limit.send("late", instant)).toEqual({ sent: "answered" });
    expect(limit.size()).toBe(2); // the send in flight (its budget full again), and the late one's budget
    held.release();
    await sending;
    expect(limit.size()).toBe(1);
  });
});
