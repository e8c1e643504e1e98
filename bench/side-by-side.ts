// `bun bench/side-by-side.ts DIR_A DIR_B [rounds] [seconds]`: two checkouts of the service (A: the
// commit before a change, B: after; e.g. a `git worktree add` of each, `bun install` in both), run
// side by side on fresh databases and driven by this checkout's load generator in alternating
// rounds (A first in odd rounds, B first in even ones), so the VM's drift falls on both alike.
// Scenarios: postLead accept (a new random number each), prePing, postLead 400. Prints req/s per
// slice, then per scenario the medians, the median of the pair ratios B/A and the server CPU per
// request (µs, /proc). Issue 18's "at least 0.95× of before" was judged with it (bench/README.md).
// BENCH_POLICY_A / BENCH_POLICY_B: an acceptance policy document for one side only (server.ts), so
// `BENCH_POLICY_B=bench/policy.json bun bench/side-by-side.ts . .` measures the policy's cost.
// BENCH_BACKEND=postgres: each side on its own database of one throwaway cluster (durable settings,
// as bench:pg), instead of a SQLite file.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { basicAuth, invalidLead, PHONE_SLOT, prePingBody, validLeadTemplate } from "./bodies.ts";
import { cpuSeconds } from "./cpu.ts";
import { runLoad, type LoadOptions } from "./drive.ts";
import { startPgCluster } from "../scripts/pg-cluster.ts";
import { startServer, type BenchServer } from "./server.ts";
import { pgSettings } from "./settings.ts";

type Side = "A" | "B";
const dirs: Record<Side, string> = { A: process.argv[2]!, B: process.argv[3]! };
const rounds = Number(process.argv[4] ?? 6);
const seconds = Number(process.argv[5] ?? 8);
const WARMUP_SECONDS = 2;

/** A scenario's request: its path and body (or the template a new number goes into). */
type Scenario = Pick<LoadOptions, "path"> & Partial<LoadOptions>;

let phoneBase = 1 + Math.floor(Math.random() * 1_000_000_000);
const scenarios = {
  accept: (): Scenario => {
    phoneBase += 5_000_000;
    return { path: "/v1/postLead", template: validLeadTemplate, slot: PHONE_SLOT, phoneStart: phoneBase, phoneCount: 5_000_000 };
  },
  prePing: (): Scenario => ({ path: "/v1/prePing", body: prePingBody }),
  invalid400: (): Scenario => ({ path: "/v1/postLead", body: invalidLead }),
};
type Name = keyof typeof scenarios;

const median = (values: number[]) => {
  const sorted = [...values].sort((p, q) => p - q);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-side-by-side-"));
const cluster = process.env.BENCH_BACKEND === "postgres" ? await startPgCluster({ settings: pgSettings(process.env) }) : null;
const start = async (side: Side) =>
  startServer({
    binary: undefined,
    repoDir: dirs[side],
    databasePath: cluster ? await cluster.createDatabase(side.toLowerCase()) : join(tmp, `${side}.db`),
    logPath: join(tmp, `${side}.log`),
    flags: ["--worker", "false"],
    policyPath: process.env[`BENCH_POLICY_${side}`],
  });
const servers: Record<Side, BenchServer> = { A: await start("A"), B: await start("B") };
const results = Object.fromEntries(
  Object.keys(scenarios).map((name) => [name, { A: [] as number[], B: [] as number[], cpuA: [] as number[], cpuB: [] as number[] }]),
) as Record<Name, { A: number[]; B: number[]; cpuA: number[]; cpuB: number[] }>;

async function measure(side: Side, name: Name): Promise<string> {
  const { url, pid } = servers[side];
  const cpuBefore = cpuSeconds(pid);
  const headers = { authorization: basicAuth("bench", "bench-password") };
  const r = await runLoad({ url, headers, connections: 50, duration: seconds, warmup: WARMUP_SECONDS, ...scenarios[name]() });
  // The CPU counted covers the warm-up too: its requests are estimated at the measured rate.
  const microsPerRequest = ((cpuSeconds(pid) - cpuBefore) * 1e6) / (r.total + r.requestsPerSec * WARMUP_SECONDS);
  results[name][side].push(r.requestsPerSec);
  results[name][side === "A" ? "cpuA" : "cpuB"].push(microsPerRequest);
  return `${side} ${name} ${r.requestsPerSec.toFixed(0)} req/s [${Object.keys(r.statusCodes).join(",")}]`;
}

try {
  for (let round = 0; round < rounds; round++)
    for (const name of Object.keys(scenarios) as Name[]) {
      const order: Side[] = round % 2 === 0 ? ["A", "B"] : ["B", "A"];
      const lines = [];
      for (const side of order) lines.push(await measure(side, name));
      console.log(`round ${round + 1}: ${lines.join(" | ")}`);
    }
} finally {
  await Promise.all([servers.A.stop(), servers.B.stop()]);
  await cluster?.stop();
  rmSync(tmp, { recursive: true, force: true });
}
for (const [name, r] of Object.entries(results)) {
  const ratios = r.A.map((a, i) => r.B[i]! / a);
  console.log(
    `RESULT ${name}: A ${median(r.A).toFixed(0)} B ${median(r.B).toFixed(0)} req/s; B/A medians ${(median(r.B) / median(r.A)).toFixed(3)}, ` +
      `median pair ratio ${median(ratios).toFixed(3)} (pairs ${ratios.map((x) => x.toFixed(2)).join(",")}); ` +
      `CPU µs/req A ${median(r.cpuA).toFixed(1)} B ${median(r.cpuB).toFixed(1)}`,
  );
}
