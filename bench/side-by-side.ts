// `bun bench/side-by-side.ts DIR_A DIR_B [rounds] [seconds]`: two checkouts of the service (A: the
// commit before a change, B: after; e.g. a `git worktree add` of each, `bun install` in both), run
// side by side on fresh databases and driven by this checkout's load generator in alternating
// rounds (A first in odd rounds, B first in even ones), so the VM's drift falls on both alike.
// Scenarios: postLead accept (a new random number each), prePing, postLead 400. Prints req/s per
// slice, then per scenario the medians, the median of the pair ratios B/A and the server CPU per
// request (µs, /proc). Issue 18's "at least 0.95× of before" was judged with it (bench/README.md).
import { invalidLead, PHONE_SLOT, prePingBody, validLeadTemplate, basicAuth } from "./bodies.ts";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
const [dirA, dirB] = [process.argv[2]!, process.argv[3]!];
const rounds = Number(process.argv[4] ?? 6),
  seconds = Number(process.argv[5] ?? 8);
const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-side-by-side-"));
function freePort() {
  const p = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const n = p.port;
  p.stop(true);
  return n;
}
async function start(dir: string, tag: string) {
  const port = freePort();
  const log = openSync(`${tmp}/${tag}.log`, "a");
  const child = Bun.spawn(
    [
      process.execPath,
      "src/main.ts",
      "serve",
      "--port",
      String(port),
      "--host",
      "127.0.0.1",
      "--database",
      `${tmp}/${tag}.db`,
      "--bootstrap-vendor",
      "bench:bench-password",
      "--rate-limit",
      "0",
      "--hold-period",
      "1h",
      "--log-level",
      "info",
      "--worker",
      "false",
    ],
    { cwd: dir, stdout: log, stderr: log, stdin: "ignore" },
  );
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url + "/readyz")).status === 200) return { url, child };
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error("not ready " + tag);
}
const servers = { A: await start(dirA, "A"), B: await start(dirB, "B") };
const cpu = (pid: number) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  return (Number(f[11]) + Number(f[12])) * 10_000;
};
let phoneBase = 1 + Math.floor(Math.random() * 1_000_000_000);
const auth = { authorization: basicAuth("bench", "bench-password") };
const scenarios = {
  accept: () => {
    phoneBase += 5_000_000;
    return { path: "/v1/postLead", template: validLeadTemplate, slot: PHONE_SLOT, phoneStart: phoneBase, phoneCount: 5_000_000 };
  },
  prePing: () => ({ path: "/v1/prePing", body: prePingBody }),
  invalid400: () => ({ path: "/v1/postLead", body: invalidLead }),
};
type Name = keyof typeof scenarios;
const results: Record<Name, { A: number[]; B: number[]; cpuA: number[]; cpuB: number[] }> = Object.fromEntries(
  Object.keys(scenarios).map((n) => [n, { A: [], B: [], cpuA: [], cpuB: [] }]),
) as never;
async function load(side: "A" | "B", name: Name) {
  const { url, child } = servers[side];
  const c0 = cpu(child.pid);
  const opts = { url, headers: auth, connections: 50, duration: seconds, warmup: 2, ...scenarios[name]() };
  const p = Bun.spawn(["node", `${import.meta.dir}/load.mjs`, JSON.stringify(opts)], { stdout: "pipe", stderr: "inherit" });
  const out = await new Response(p.stdout).text();
  await p.exited;
  const r = JSON.parse(out.trim().split("\n").at(-1)!);
  const codes = Object.keys(r.statusCodes).join(",");
  // The CPU counted covers the 2 s warm-up too: its requests are estimated at the measured rate.
  const us = (cpu(child.pid) - c0) / (r.total + r.requestsPerSec * 2);
  results[name][side].push(r.requestsPerSec);
  results[name][side === "A" ? "cpuA" : "cpuB"].push(us);
  return `${side} ${name} ${r.requestsPerSec.toFixed(0)} req/s [${codes}]`;
}
try {
  for (let i = 0; i < rounds; i++)
    for (const name of Object.keys(scenarios) as Name[]) {
      const order: ("A" | "B")[] = i % 2 === 0 ? ["A", "B"] : ["B", "A"];
      const lines = [];
      for (const side of order) lines.push(await load(side, name));
      console.log(`round ${i + 1}: ${lines.join(" | ")}`);
    }
} finally {
  servers.A.child.kill("SIGTERM");
  servers.B.child.kill("SIGTERM");
  await Promise.all([servers.A.child.exited, servers.B.child.exited]);
  rmSync(tmp, { recursive: true, force: true });
}
const med = (v: number[]) => {
  const s = [...v].sort((p, q) => p - q);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
for (const [name, r] of Object.entries(results)) {
  const ratios = r.A.map((a, i) => r.B[i]! / a);
  console.log(
    `RESULT ${name}: A ${med(r.A).toFixed(0)} B ${med(r.B).toFixed(0)} req/s; B/A medians ${(med(r.B) / med(r.A)).toFixed(3)}, median pair ratio ${med(ratios).toFixed(3)} (pairs ${ratios.map((x) => x.toFixed(2)).join(",")}); CPU µs/req A ${med(r.cpuA).toFixed(1)} B ${med(r.cpuB).toFixed(1)}`,
  );
}
