// A provider's flight (hold/asking.ts Flight): its places refilled half the flight at a time, and a
// freed place wakes the job's loop only while leads are waiting (the last read filled its room);
// otherwise the loop's own interval finds new leads, as each read walks past the answered ones.
import { expect, test } from "bun:test";
import { Flight } from "../../src/hold/asking.ts";

/** A pass's read through `flight` that finds `count` leads (whatever room it had). */
const readFinding = (flight: Flight, count: number) => flight.read(async () => Array.from({ length: count }, (_, i) => `lead-${i}`));

/** `n` requests started in `flight`, each ended by its `end()`. */
function startRequests(flight: Flight, n: number) {
  return Array.from({ length: n }, (_, i) => {
    const { promise, resolve } = Promise.withResolvers<void>();
    flight.start(`lead-${i}`, () => promise);
    return resolve;
  });
}

test("room: none until half the places are free", async () => {
  const flight = new Flight(4);
  expect(flight.room()).toBe(4);
  const ends = startRequests(flight, 4);
  expect(flight.room()).toBe(0);
  ends[0]!();
  await Bun.sleep(0);
  expect(flight.room()).toBe(0);
  ends[1]!();
  await Bun.sleep(0);
  expect(flight.room()).toBe(2);
  for (const end of ends) end();
  await flight.settled();
  expect(flight.room()).toBe(4);
});

test("a read that filled its room: half the flight freed wakes the loop, once", async () => {
  let wakes = 0;
  const flight = new Flight(4, () => wakes++);
  await readFinding(flight, 4);
  const ends = startRequests(flight, 4);
  ends[0]!();
  await Bun.sleep(0);
  expect(wakes).toBe(0);
  ends[1]!();
  await Bun.sleep(0);
  expect(wakes).toBe(1);
  ends[2]!();
  ends[3]!();
  await flight.settled();
  expect(wakes).toBe(1);
});

test("a read that found fewer than its room: freed places wait for the loop's interval", async () => {
  let wakes = 0;
  const flight = new Flight(4, () => wakes++);
  await readFinding(flight, 3);
  for (const end of startRequests(flight, 4)) end();
  await flight.settled();
  expect(wakes).toBe(0);
  await readFinding(flight, 4);
  const ends = startRequests(flight, 4);
  // A pass with no room reads nothing: it does not change what the last read said.
  await readFinding(flight, 0);
  for (const end of ends) end();
  await flight.settled();
  expect(wakes).toBe(1);
});
