// `bun bench/fsync-pair.ts [DIR] [SLICES] [SLICE_MS]`: does a second writer's own fdatasync of the
// WAL slow intake's (issue 30 goal 2, the worker thread's fsyncs)? Intake appends a small batch
// (4 pages) and fdatasyncs, back to back; a second writer appends 32 pages every 40 ms (the worker
// thread's pace under bench:p99) and either (A) fdatasyncs them itself, two fsync streams on one
// file, or (B) leaves them to intake's next fdatasync, one stream. The two alternate in slices of
// one run (the disk is shared), and it prints intake's fsync latency in each, and the ratio of the
// slices' p99s. A pure measurement of the disk under the service's pattern, no server involved.
import { fdatasync, ftruncateSync, openSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const dir = process.argv[2] ?? tmpdir();
const slices = Number(process.argv[3] ?? 20);
const sliceMs = Number(process.argv[4] ?? 2_000);
const PAGE = 4096;
const WORKER_EVERY_MS = 40;
const MAX_FILE = 256 * 1024 * 1024;

type Mode = "two streams" | "one stream";

const path = join(dir, `fsync-pair-${process.pid}.wal`);
const intakeFd = openSync(path, "w+");
const workerFd = openSync(path, "r+");
const intakeBatch = Buffer.alloc(4 * PAGE, 1);
const workerBatch = Buffer.alloc(32 * PAGE, 2);
let end = 0;

function append(fd: number, bytes: Buffer) {
  writeSync(fd, bytes, 0, bytes.length, end);
  end += bytes.length;
}

/** fdatasync on the thread pool, as the service's (db/wal-sync.ts); resolves with its duration, ms. */
const timedSync = (fd: number) =>
  new Promise<number>((resolve, reject) => {
    const started = performance.now();
    fdatasync(fd, (error) => (error ? reject(error) : resolve(performance.now() - started)));
  });

/** One slice: intake's fsync durations while the second writer works in `mode`. */
async function slice(mode: Mode): Promise<number[]> {
  const durations: number[] = [];
  const until = performance.now() + sliceMs;
  let stopped = false;
  const worker = (async () => {
    while (!stopped) {
      append(workerFd, workerBatch);
      if (mode === "two streams") await timedSync(workerFd);
      await Bun.sleep(WORKER_EVERY_MS);
    }
  })();
  while (performance.now() < until) {
    append(intakeFd, intakeBatch);
    durations.push(await timedSync(intakeFd));
  }
  stopped = true;
  await worker;
  if (end > MAX_FILE) {
    ftruncateSync(intakeFd, 0);
    end = 0;
  }
  return durations;
}

const quantile = (values: number[], q: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
};

const modes: Mode[] = ["two streams", "one stream"];
const all = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
const sliceP99s = new Map<Mode, number[]>(modes.map((mode) => [mode, []]));
try {
  for (let i = 0; i < slices; i++) {
    // The order flips every slice, so neither mode always runs first.
    for (const mode of i % 2 === 0 ? modes : [...modes].reverse()) {
      const durations = await slice(mode);
      all.get(mode)!.push(...durations);
      sliceP99s.get(mode)!.push(quantile(durations, 0.99));
    }
  }
} finally {
  unlinkSync(path);
}
for (const mode of modes) {
  const v = all.get(mode)!;
  const ms = (q: number) => quantile(v, q).toFixed(2);
  console.log(`${mode}: intake's fsyncs ${v.length}, p50 ${ms(0.5)} p90 ${ms(0.9)} p99 ${ms(0.99)} max ${ms(1)} ms`);
}
const ratios = sliceP99s.get("two streams")!.map((p99, i) => p99 / sliceP99s.get("one stream")![i]!);
console.log(`slice p99 two streams / one stream: median ${quantile(ratios, 0.5).toFixed(2)} (${ratios.map((r) => r.toFixed(2)).join(" ")})`);
