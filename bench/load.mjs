// The load generator, run by Node in its own process so it does not share an event loop with the
// server: `node bench/load.mjs '<json options>'`. Runs a warm-up, then the measured run, and prints
// one JSON line with the measured run's results.
//
// Options: { url, path, headers, connections, duration, warmup, body } for a fixed body;
// { ..., template, slot, phoneStart, phoneCount } to put a new phone number into every request; or
// { ..., workload } for the realistic workload's bodies (workload.mjs: createWorkload's options).
import autocannon from "autocannon";
import { createWorkload } from "./workload.mjs";

const options = JSON.parse(process.argv[2] ?? "{}");
const { url, path, headers, connections, duration, warmup } = options;

// Never hang the caller: whatever happens, this process ends shortly after its planned runtime.
const deadline = setTimeout(
  () => {
    console.error("load.mjs: deadline passed, giving up");
    process.exit(3);
  },
  (warmup + duration + 30) * 1000,
);
deadline.unref();

// A template is the workload without shares: every request gets the next number from phoneStart
// on. One workload is shared by all connections (one process, one event loop). phoneCount is only
// a bound the caller checks: a block is far larger than any run can use.
const workloadOptions =
  options.workload ??
  (options.template ? { template: options.template, slot: options.slot, phoneStart: options.phoneStart, invalidBody: "", callbackBase: "" } : undefined);
const workload = workloadOptions && createWorkload(workloadOptions);
let sent = 0;

// A `setupRequest` makes autocannon rebuild the whole request (headers, buffers) before every send,
// which cost the load generator more CPU per request than the server's own work on this 2-core
// machine. So autocannon builds the request once, and each connection sends that request's head
// with the next body of the workload and its Content-Length.
const request = { method: "POST", path, body: workload ? "{}" : options.body }; // a workload's stand-in: every send replaces it
function withWorkloadBodies(client) {
  const built = client.requestIterator.currentRequest.requestBuffer.toString("latin1");
  const head = built.slice(0, built.indexOf("\r\n\r\n")).replace(/\r\ncontent-length: *\d+/i, "");
  client.getRequestBuffer = () => {
    const { body } = workload.next();
    sent++;
    return Buffer.from(`${head}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  };
}

// autocannon's own percentiles are whole milliseconds, too coarse for sub-millisecond answers, so
// the measured run also keeps each response time (ms, float). Bounded memory: past CAPACITY
// samples, reservoir sampling keeps a uniform sample of all of them.
const CAPACITY = 1 << 22;
const latencies = new Float64Array(CAPACITY);
let seen = 0;
function record(ms) {
  const slot = seen < CAPACITY ? seen : Math.floor(Math.random() * (seen + 1));
  if (slot < CAPACITY) latencies[slot] = ms;
  seen++;
}
function percentile(sorted, p) {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

async function run(seconds, onResponse) {
  const tracker = autocannon({
    url,
    connections,
    duration: seconds,
    headers: { "content-type": "application/json", ...headers },
    requests: [request],
    ...(workload ? { setupClient: withWorkloadBodies } : {}),
  });
  if (onResponse) tracker.on("response", (_client, _status, _bytes, ms) => onResponse(ms));
  return await tracker;
}

if (warmup > 0) await run(warmup);
const usedBefore = sent;
const measuredFrom = Date.now();
const result = await run(duration, record);
const measuredTo = Date.now();
const sorted = latencies.subarray(0, Math.min(seen, CAPACITY)).sort();

const statusCodes = Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, { count }]) => [code, count]));
console.log(
  JSON.stringify({
    // Completed requests over the elapsed time (a run often lasts one sampling tick longer than asked).
    requestsPerSec: result.requests.total / result.duration,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    total: result.requests.total,
    non2xx: result.non2xx,
    statusCodes,
    errors: result.errors,
    timeouts: result.timeouts,
    durationSec: result.duration,
    phonesUsed: workload ? sent : 0,
    phonesUsedMeasured: workload ? sent - usedBefore : 0,
    // Wall-clock bounds (epoch ms) of the measured run, to line it up with what the server did meanwhile.
    measuredFrom,
    measuredTo,
  }),
);
process.exit(0);
