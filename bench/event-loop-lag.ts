// A probe preloaded into the server by `BENCH_LAG=1 bun run bench:steady` (Bun's --preload): how
// long the event loop was kept from a 1 ms timer, every 10 s, on the server's stderr (its log):
// `LAG n=… p50=… p99=… p999=… max=… sum>5ms=…` in ms, the last the time lost in blocks over 5 ms.
// What blocked it is told by JSC's own GC log (BUN_JSC_logGC=1) and a CPU profile (BENCH_CPU_PROF=1).
const lags: number[] = [];
let last = performance.now();
setInterval(() => {
  const now = performance.now();
  lags.push(now - last - 1);
  last = now;
}, 1).unref();

setInterval(() => {
  const sorted = lags.splice(0).sort((a, b) => a - b);
  if (sorted.length === 0) return;
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(1);
  const lostInBlocks = sorted.filter((lag) => lag > 5).reduce((sum, lag) => sum + lag, 0);
  console.error(`LAG n=${sorted.length} p50=${at(0.5)} p99=${at(0.99)} p999=${at(0.999)} max=${sorted.at(-1)!.toFixed(1)} sum>5ms=${lostInBlocks.toFixed(0)}`);
}, 10_000).unref();
