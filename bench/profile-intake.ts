// `bun bench/profile-intake.ts [accept|prePing] [seconds] [REPO_DIR]`: one server (REPO_DIR's
// checkout, default this one) on a fresh SQLite database (BENCH_BACKEND=postgres: a throwaway
// cluster's, as side-by-side.ts), its worker off, default logging (to a file), under one intake
// scenario at 50 connections, a new random number per request. Prints the rate and the server's
// CPU per request (/proc, user + system, the warm-up's requests estimated at the measured rate),
// and where the CPU profile (`--cpu-prof`, for Chrome DevTools, or bench/profile-samples.ts) was
// written. BENCH_PROFILE=0: no profiler (its sampling costs a few percent), for CPU per request
// alone; run it on two checkouts in turns to compare them (bench/README.md, issue 30).
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { basicAuth, PHONE_SLOT, prePingTemplate, validLeadTemplate } from "./bodies.ts";
import { cpuSeconds } from "./cpu.ts";
import { runLoad } from "./drive.ts";
import { startPgCluster } from "../scripts/pg-cluster.ts";
import { startServer } from "./server.ts";
import { pgSettings } from "./settings.ts";

const scenario = process.argv[2] ?? "accept";
const seconds = Number(process.argv[3] ?? 10);
const repoDir = resolve(process.argv[4] ?? resolve(import.meta.dir, ".."));
const profiled = process.env.BENCH_PROFILE !== "0";
const WARMUP_SECONDS = 2;
const dir = mkdtempSync(join(tmpdir(), "lead-ingress-profile-"));
const cluster = process.env.BENCH_BACKEND === "postgres" ? await startPgCluster({ settings: pgSettings(process.env) }) : null;
const server = await startServer({
  binary: undefined,
  repoDir,
  databasePath: cluster ? await cluster.createDatabase("profile") : join(dir, "bench.db"),
  logPath: join(dir, "server.log"),
  flags: ["--worker", "false"],
  bunFlags: profiled ? ["--cpu-prof", `--cpu-prof-dir=${dir}`] : [],
});
/** CPU seconds (user, system) of each of a process's threads by name: the event loop is the one named as the process. */
function threadCpu(pid: number): Map<string, { user: number; system: number }> {
  const byName = new Map<string, { user: number; system: number }>();
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, "utf8");
      const name = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const fields = stat
        .slice(stat.lastIndexOf(")") + 2)
        .split(" ")
        .map(Number);
      const sum = byName.get(name) ?? { user: 0, system: 0 };
      byName.set(name, { user: sum.user + fields[11]! / 100, system: sum.system + fields[12]! / 100 });
    } catch {
      // The thread ended meanwhile.
    }
  }
  return byName;
}

const phoneStart = 1 + Math.floor(Math.random() * 1_000_000_000);
const template = scenario === "prePing" ? prePingTemplate : validLeadTemplate;
const path = scenario === "prePing" ? "/v1/prePing" : "/v1/postLead";
try {
  const cpuBefore = cpuSeconds(server.pid);
  const threadsBefore = threadCpu(server.pid);
  const result = await runLoad({
    url: server.url,
    path,
    connections: 50,
    duration: seconds,
    warmup: WARMUP_SECONDS,
    headers: { authorization: basicAuth("bench", "bench-password") },
    template,
    slot: PHONE_SLOT,
    phoneStart,
    phoneCount: 5_000_000,
  });
  const requests = result.total + result.requestsPerSec * WARMUP_SECONDS;
  const micros = ((cpuSeconds(server.pid) - cpuBefore) * 1e6) / requests;
  const perThread = [...threadCpu(server.pid)].map(([name, { user, system }]) => {
    const before = threadsBefore.get(name) ?? { user: 0, system: 0 };
    return { name, user: ((user - before.user) * 1e6) / requests, system: ((system - before.system) * 1e6) / requests };
  });
  console.log(
    `${scenario} ${repoDir}: ${result.requestsPerSec.toFixed(0)} req/s ${JSON.stringify(result.statusCodes)}, server CPU ${micros.toFixed(1)} µs/request`,
  );
  const threads = perThread.filter((thread) => thread.user + thread.system >= 0.5).sort((a, b) => b.user + b.system - (a.user + a.system));
  console.log(`  by thread, µs/request user+system: ${threads.map((t) => `${t.name} ${t.user.toFixed(1)}+${t.system.toFixed(1)}`).join(", ")}`);
} finally {
  await server.stop();
  await cluster?.stop();
}
if (profiled) console.log(`profile: ${join(dir, readdirSync(dir).find((name) => name.endsWith(".cpuprofile")) ?? "(none written)")}`);
