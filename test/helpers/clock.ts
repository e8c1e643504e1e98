/** A clock tests move by hand: `now()` for the code under test, `advance(ms)` for the test. */
export function fakeClock(start = 1_700_000_000_000) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}
