// Settings shared by the benchmarks.
import { PHONE_SPACE } from "./phones.mjs";

/** An environment setting that must be a whole number from 1 to `max`. */
export function positiveInteger(raw: string | undefined, fallback: number, max: number): number {
  const n = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!Number.isInteger(n) || n <= 0 || n > max) throw new Error(`expected an integer from 1 to ${max}, got ${raw}`);
  return n;
}

/**
 * How long and how hard each load scenario runs: BENCH_QUICK=1 gives 2 s after a 1 s warm-up, else
 * BENCH_DURATION seconds (10) after 3 s; BENCH_CONNECTIONS connections (50).
 */
export function loadTiming(env: Record<string, string | undefined>) {
  const quick = env.BENCH_QUICK === "1";
  return {
    quick,
    duration: quick ? 2 : positiveInteger(env.BENCH_DURATION, 10, 3600),
    warmup: quick ? 1 : 3,
    connections: positiveInteger(env.BENCH_CONNECTIONS, 50, 3600),
  };
}

export const PHONE_BLOCK = 40_000_000;

/**
 * Disjoint blocks of phones.mjs numbers, one per name, so seeded leads never collide with the ones
 * a scenario sends; a random base per run means two runs never send the same numbers.
 */
export function phoneBlocks<K extends string>(...names: K[]): Record<K, number> {
  const base = Math.floor(Math.random() * PHONE_SPACE);
  return Object.fromEntries(names.map((name, i) => [name, base + i * PHONE_BLOCK])) as Record<K, number>;
}

/**
 * Runs a benchmark's `main`, then `cleanUp` whatever happens. On failure it says where the logs
 * are, keeps them (BENCH_KEEP_TMP=1 for cleanUp) and sets a failing exit code.
 */
export async function runBenchmark(main: () => Promise<void>, cleanUp: () => Promise<void>, logs: string): Promise<void> {
  try {
    await main();
  } catch (error) {
    console.error(`benchmark failed: ${error instanceof Error ? error.message : String(error)}`);
    console.error(`logs: ${logs}`);
    process.env.BENCH_KEEP_TMP = "1";
    process.exitCode = 1;
  } finally {
    await cleanUp();
  }
}
