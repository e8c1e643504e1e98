// `bun bench/checks.ts [rounds] [seconds] [connections]`: issue 28's goal for intake checks. Two
// servers of this checkout on fresh databases (BENCH_BACKEND=postgres: each on its own database of
// one throwaway cluster), A without a policy, B with one intake check whose service (served by this
// process) answers `pass` after 20 ms; driven by the same closed-loop load (postLead accept, a new
// number each) at the same concurrency, in alternating rounds (A first in odd rounds, B first in
// even ones), so the VM's drift falls on both alike. Prints req/s per round, the median of the pair
// ratios B/A (the goal: at least 0.8, the wait must not hold a core), each side's p50/p99 and the
// server's CPU per lead (/proc: ours alone) and its part on intake's thread (the main thread: what
// the checks' thread is there to spare it), the check service's CPU per check, and the load average
// (the machine is shared: a figure taken at a high load says little).
// Then C: the check's service hangs (timeout_ms HANG_TIMEOUT_MS): every lead is answered (on_error
// accept), and none waits much longer than the timeout (p50 and p99 printed, and the server's own
// histogram of check waits: how many ended within the timeout plus 50 ms, and how: timed out, or
// answered at once while the check was paused).
// BENCH_PROFILE=1: servers A and B run under Bun's CPU profiler (`--cpu-prof`, intake's thread; its
// sampling costs a few percent, so compare CPU figures without it), and the profiles' paths are
// printed at the end, to read with bench/profile-samples.ts: B's functions less A's are a check's.
//
// Concurrency matters: in a closed loop, throughput ≤ connections / latency, so B's 20 ms wait per
// lead caps it at connections / 0.02 s. The default, 400 connections, lets B reach 20,000 req/s,
// above A's 14,000-18,000 on a quiet day, so the ratio measures the server's cost, not the loop's
// (at 200 the loop alone held B/A under 0.62 once A passed 16,000: bench/README.md, issue 28).
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { basicAuth, PHONE_SLOT, validLeadTemplate } from "./bodies.ts";
import { startCheckService } from "./check-service.ts";
import { cpuSeconds } from "./cpu.ts";
import { runLoad, type LoadResult } from "./drive.ts";
import { startPgCluster } from "../scripts/pg-cluster.ts";
import { startServer, type BenchServer } from "./server.ts";
import { pgSettings } from "./settings.ts";

const rounds = Number(process.argv[2] ?? 4);
const seconds = Number(process.argv[3] ?? 6);
const connections = Number(process.argv[4] ?? 400);
const WARMUP_SECONDS = 2;
const ANSWER_MS = 20;
const HANG_TIMEOUT_MS = 200;

// The check service (check-service.ts), served by this process: its CPU per check is printed (this
// process's: the load generator is another one).
const listener = startCheckService(ANSWER_MS);
const service = { url: new URL(`http://127.0.0.1:${listener.port}`), stop: (closeActive: boolean) => listener.stop(closeActive) };

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-checks-bench-"));
/** Where the servers' CPU profiles go (kept after the run), with BENCH_PROFILE=1. */
const profileDir = process.env.BENCH_PROFILE === "1" ? mkdtempSync(join(tmpdir(), "lead-ingress-checks-profile-")) : null;
const profiled = (side: Side) => (profileDir && side !== "C" ? ["--cpu-prof", `--cpu-prof-dir=${join(profileDir, side)}`] : []);
/** A policy of one intake check on every lead, at `path` of the service. */
async function policyFile(name: string, path: string, timeoutMs: number): Promise<string> {
  const file = join(tmp, `${name}.json`);
  const check = { name, url: `${service.url.origin}${path}`, send: ["phone_number", "state"], timeout_ms: timeoutMs, on_error: "accept" };
  await Bun.write(file, JSON.stringify({ checks: [check] }));
  return file;
}

type Side = "A" | "B" | "C";
const cluster = process.env.BENCH_BACKEND === "postgres" ? await startPgCluster({ settings: pgSettings(process.env) }) : null;
const start = async (side: Side, policyPath: string | undefined) =>
  startServer({
    binary: undefined,
    repoDir: join(import.meta.dir, ".."),
    databasePath: cluster ? await cluster.createDatabase(side.toLowerCase()) : join(tmp, `${side}.db`),
    logPath: join(tmp, `${side}.log`),
    // The check service is on loopback: allowed as in development and tests.
    flags: ["--worker", "false", "--allow-private-callbacks", "true", "--log-level", "warn"],
    policyPath,
    bunFlags: profiled(side),
  });

const median = (values: number[]) => {
  const sorted = [...values].sort((p, q) => p - q);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface Measured extends LoadResult {
  /** The server's CPU per request (µs, /proc), the warm-up's requests estimated at the measured rate; the check service's is not in it. */
  cpuMicros: number;
  /** Of cpuMicros, the part on intake's thread (the event loop that answers HTTP: the server's main thread). */
  intakeMicros: number;
  /** This process's CPU per request (µs): the check service's, when the side has a check (the load generator is another process). */
  serviceMicros: number;
  /** The 1-minute load average at the end of the run. */
  load: number;
}

let phoneBase = 1 + Math.floor(Math.random() * 1_000_000_000);
async function load(server: BenchServer): Promise<Measured> {
  phoneBase += 5_000_000;
  const cpuBefore = cpuSeconds(server.pid);
  const intakeBefore = cpuSeconds(server.pid, server.pid);
  const serviceBefore = process.cpuUsage();
  const result = await runLoad({
    url: server.url,
    path: "/v1/postLead",
    headers: { authorization: basicAuth("bench", "bench-password") },
    connections,
    duration: seconds,
    warmup: WARMUP_SECONDS,
    template: validLeadTemplate,
    slot: PHONE_SLOT,
    phoneStart: phoneBase,
    phoneCount: 5_000_000,
  });
  const requests = result.total + result.requestsPerSec * WARMUP_SECONDS;
  const service = process.cpuUsage(serviceBefore);
  const cpuMicros = ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / requests;
  const intakeMicros = ((cpuSeconds(server.pid, server.pid) - intakeBefore) * 1e6) / requests;
  return { ...result, cpuMicros, intakeMicros, serviceMicros: (service.user + service.system) / requests, load: loadavg()[0] ?? 0 };
}

const describe = (side: Side, r: Measured) =>
  `${side} ${r.requestsPerSec.toFixed(0)} req/s p50 ${r.p50Ms.toFixed(1)} ms p99 ${r.p99Ms.toFixed(1)} ms CPU ${r.cpuMicros.toFixed(0)} µs/req ` +
  `(intake's thread ${r.intakeMicros.toFixed(0)}) ` +
  `(service ${r.serviceMicros.toFixed(0)}) load ${r.load.toFixed(1)} [${Object.keys(r.statusCodes).join(",")}]`;

/** From the server's metrics: how many check waits ended within the timeout plus 50 ms, and the answers by outcome. */
async function checkWaits(server: BenchServer): Promise<string> {
  const metrics = await (await fetch(`${server.url}/metrics`)).text();
  const value = (prefix: string) =>
    Number(
      metrics
        .split("\n")
        .find((line) => line.startsWith(prefix))
        ?.split(" ")[1] ?? Number.NaN,
    );
  const within = value('lead_ingress_check_duration_seconds_bucket{check="hangs",le="0.25"}');
  const all = value('lead_ingress_check_duration_seconds_bucket{check="hangs",le="+Inf"}');
  const errors = value('lead_ingress_check_answers_total{check="hangs",outcome="error"}');
  return `requests sent ${all}, ended within ${HANG_TIMEOUT_MS + 50} ms: ${within}; errors (timeouts, and leads answered at once while the check was paused) ${errors}`;
}

const servers: Partial<Record<Side, BenchServer>> = {};
try {
  servers.A = await start("A", undefined);
  servers.B = await start("B", await policyFile("answers-in-20ms", "/pass", 800));
  const measured: Record<"A" | "B", Measured[]> = { A: [], B: [] };
  for (let round = 0; round < rounds; round++) {
    const order: ("A" | "B")[] = round % 2 === 0 ? ["A", "B"] : ["B", "A"];
    const lines = [];
    for (const side of order) {
      const result = await load(servers[side]!);
      measured[side].push(result);
      lines.push(describe(side, result));
    }
    console.log(`round ${round + 1}: ${lines.join(" | ")}`);
  }
  const rate = (side: "A" | "B") => measured[side].map((r) => r.requestsPerSec);
  const ratios = rate("A").map((a, i) => rate("B")[i]! / a);
  console.log(
    `RESULT one intake check answering in ${ANSWER_MS} ms, ${connections} connections: A ${median(rate("A")).toFixed(0)} B ${median(rate("B")).toFixed(0)} req/s; ` +
      `median pair ratio B/A ${median(ratios).toFixed(3)} (pairs ${ratios.map((x) => x.toFixed(2)).join(",")}; goal ≥ 0.8); ` +
      `p99 A ${median(measured.A.map((r) => r.p99Ms)).toFixed(1)} B ${median(measured.B.map((r) => r.p99Ms)).toFixed(1)} ms; ` +
      `server CPU µs/req A ${median(measured.A.map((r) => r.cpuMicros)).toFixed(0)} B ${median(measured.B.map((r) => r.cpuMicros)).toFixed(0)}, ` +
      `of it on intake's thread A ${median(measured.A.map((r) => r.intakeMicros)).toFixed(0)} B ${median(measured.B.map((r) => r.intakeMicros)).toFixed(0)}; ` +
      `check service CPU µs/check ${median(measured.B.map((r) => r.serviceMicros)).toFixed(0)}; load ${median([...measured.A, ...measured.B].map((r) => r.load)).toFixed(1)}`,
  );
  await Promise.all([servers.A.stop(), servers.B.stop()]);
  servers.A = servers.B = undefined;

  servers.C = await start("C", await policyFile("hangs", "/hang", HANG_TIMEOUT_MS));
  const hung = await load(servers.C);
  console.log(
    `RESULT a hanging check service, timeout_ms ${HANG_TIMEOUT_MS}: ${describe("C", hung)}; every lead answered 200: ${Object.keys(hung.statusCodes).join(",") === "200"}; ` +
      (await checkWaits(servers.C)),
  );
} finally {
  await Promise.all(Object.values(servers).map((server) => server?.stop()));
  await cluster?.stop();
  service.stop(true);
  rmSync(tmp, { recursive: true, force: true });
}
if (profileDir)
  for (const side of readdirSync(profileDir))
    for (const name of readdirSync(join(profileDir, side))) console.log(`${side}'s CPU profile: ${join(profileDir, side, name)}`);
