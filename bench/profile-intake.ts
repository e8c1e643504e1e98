// `BENCH_POLICY=bench/policy.json bun bench/profile-intake.ts [accept|prePing] [seconds]`: one
// server on a fresh SQLite database (BENCH_BACKEND=postgres: a throwaway cluster's, as side-by-side.ts), its worker off, profiled (`--cpu-prof`, a .cpuprofile for Chrome DevTools or bench/profile-samples.ts) under one intake
// scenario at 50 connections; prints the rate and where the Markdown profile was written. For
// reading a change's cost by samples (bench/README.md), beside side-by-side.ts's ratios.
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { basicAuth, PHONE_SLOT, prePingTemplate, validLeadTemplate } from "./bodies.ts";
import { runLoad } from "./drive.ts";
import { startPgCluster } from "../scripts/pg-cluster.ts";
import { startServer } from "./server.ts";
import { pgSettings } from "./settings.ts";

const scenario = process.argv[2] ?? "accept";
const seconds = Number(process.argv[3] ?? 10);
const dir = mkdtempSync(join(tmpdir(), "lead-ingress-profile-"));
const cluster = process.env.BENCH_BACKEND === "postgres" ? await startPgCluster({ settings: pgSettings(process.env) }) : null;
const server = await startServer({
  binary: undefined,
  repoDir: resolve(import.meta.dir, ".."),
  databasePath: cluster ? await cluster.createDatabase("profile") : join(dir, "bench.db"),
  logPath: join(dir, "server.log"),
  flags: ["--worker", "false"],
  bunFlags: ["--cpu-prof", `--cpu-prof-dir=${dir}`],
});
const phoneStart = 1 + Math.floor(Math.random() * 1_000_000_000);
const template = scenario === "prePing" ? prePingTemplate : validLeadTemplate;
const path = scenario === "prePing" ? "/v1/prePing" : "/v1/postLead";
try {
  const result = await runLoad({
    url: server.url,
    path,
    connections: 50,
    duration: seconds,
    warmup: 2,
    headers: { authorization: basicAuth("bench", "bench-password") },
    template,
    slot: PHONE_SLOT,
    phoneStart,
    phoneCount: 5_000_000,
  });
  console.log(`${scenario}: ${result.requestsPerSec.toFixed(0)} req/s ${JSON.stringify(result.statusCodes)}`);
} finally {
  await server.stop();
  await cluster?.stop();
}
console.log(`profile: ${join(dir, readdirSync(dir).find((name) => name.endsWith(".cpuprofile")) ?? "(none written)")}`);
