import { rmSync } from "node:fs";
// Settings shared by the benchmarks.
import { PHONE_SPACE } from "./phones.mjs";
import type { WorkloadShares } from "./workload.mjs";

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

/** An environment setting that must be a share from 0 to 1. */
export function share(raw: string | undefined, fallback: number): number {
  const n = raw === undefined || raw === "" ? fallback : Number(raw);
  if (!(n >= 0 && n <= 1)) throw new Error(`expected a share from 0 to 1, got ${raw}`);
  return n;
}

/**
 * The realistic workload's shares (workload.mjs): BENCH_DUPLICATE_SHARE and BENCH_INVALID_SHARE of
 * all requests (0: every lead is new and valid unless asked), BENCH_CALLBACK_RETRY_SHARE (0.05),
 * BENCH_CALLBACK_DEAD_SHARE (0.01) and BENCH_CALLBACK_HANG_SHARE (0) of the valid leads' callbacks:
 * failing once, always, or never answering. A scenario may pass other defaults.
 */
export function workloadShares(env: Record<string, string | undefined>, defaults: WorkloadShares = {}): Required<WorkloadShares> {
  const shares = {
    duplicate: share(env.BENCH_DUPLICATE_SHARE, defaults.duplicate ?? 0),
    invalid: share(env.BENCH_INVALID_SHARE, defaults.invalid ?? 0),
    callbackRetry: share(env.BENCH_CALLBACK_RETRY_SHARE, defaults.callbackRetry ?? 0.05),
    callbackDead: share(env.BENCH_CALLBACK_DEAD_SHARE, defaults.callbackDead ?? 0.01),
    callbackHang: share(env.BENCH_CALLBACK_HANG_SHARE, defaults.callbackHang ?? 0),
  };
  if (shares.duplicate + shares.invalid > 1 || shares.callbackRetry + shares.callbackDead + shares.callbackHang > 1)
    throw new Error(`shares add up to more than 1: ${JSON.stringify(shares)}`);
  return shares;
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

/** Removes a run's temporary folder, or says where it is kept (BENCH_KEEP_TMP=1). */
export function discardTmp(tmp: string): void {
  if (process.env.BENCH_KEEP_TMP === "1") console.log(`kept ${tmp}`);
  else rmSync(tmp, { recursive: true, force: true });
}

/**
 * Runs a benchmark's `main`, then `cleanUp` whatever happens (an interrupt too). On failure it says where the logs
 * are, keeps them (BENCH_KEEP_TMP=1 for cleanUp) and sets a failing exit code.
 */
export async function runBenchmark(main: () => Promise<void>, cleanUp: () => Promise<void>, logs: string): Promise<void> {
  for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, () => void cleanUp().finally(() => process.exit(130)));
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

/** PostgreSQL durable, as a production database would run; BENCH_PG_SETTINGS (NAME=VALUE,…) adds to or overrides these. */
export function pgSettings(env: Record<string, string | undefined>): Record<string, string> {
  const extra = (env.BENCH_PG_SETTINGS ?? "")
    .split(",")
    .filter(Boolean)
    .map((pair) => {
      const [name, value] = pair.split("=");
      if (!name || value === undefined) throw new Error(`BENCH_PG_SETTINGS: expected NAME=VALUE[,NAME=VALUE…], got ${pair}`);
      return [name.trim(), value.trim()];
    });
  return { fsync: "on", full_page_writes: "on", synchronous_commit: "on", ...Object.fromEntries(extra) };
}
