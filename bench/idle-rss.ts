// `bun bench/idle-rss.ts`: an idle server's resident memory, binaries A/B in alternating rounds (the
// machine's load changes between rounds, not within one). Each round starts each binary on a fresh
// SQLite database, waits for /readyz, lets it settle, and reads VmRSS and the thread count from /proc.
//
//   bun bench/idle-rss.ts --binary dist/lead-ingress [--binary other/lead-ingress] [--rounds 5] [--settle-ms 3000]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: { binary: { type: "string", multiple: true }, rounds: { type: "string" }, "settle-ms": { type: "string" } },
});
const binaries = (args.binary ?? ["dist/lead-ingress"]).map((path) => resolve(path));
const rounds = Number(args.rounds ?? 5);
const settleMs = Number(args["settle-ms"] ?? 3_000);

/** One start of `binary`: its idle RSS (MiB) and threads. */
async function idle(binary: string): Promise<{ rssMiB: number; threads: number }> {
  const dir = mkdtempSync(join(tmpdir(), "lead-ingress-idle-rss-"));
  const child = Bun.spawn([binary, "serve", "--host", "127.0.0.1", "--port", "0", "--database", join(dir, "idle.db")], { stdout: "pipe", stderr: "ignore" });
  try {
    const reader = child.stdout.getReader();
    let text = "";
    let url: string | undefined;
    while (!url) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`${binary} exited before listening`);
      text += new TextDecoder().decode(value);
      url = /"event":"listening".*?"url":"([^"]+)"/.exec(text)?.[1];
    }
    while ((await fetch(`${url}/readyz`).catch(() => null))?.status !== 200) await Bun.sleep(50);
    await Bun.sleep(settleMs);
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const rssKiB = Number(/VmRSS:\s+(\d+)/.exec(status)![1]);
    return { rssMiB: rssKiB / 1024, threads: readdirSync(`/proc/${child.pid}/task`).length };
  } finally {
    child.kill();
    await child.exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const samples = binaries.map(() => [] as { rssMiB: number; threads: number }[]);
console.log(
  `load average before: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
for (let round = 0; round < rounds; round++) {
  for (const [i, binary] of binaries.entries()) samples[i]!.push(await idle(binary));
}
const median = (values: number[]) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)]!;
for (const [i, binary] of binaries.entries()) {
  const rss = samples[i]!.map((sample) => sample.rssMiB);
  console.log(
    `${binary}: idle RSS median ${median(rss).toFixed(1)} MiB (${rss.map((n) => n.toFixed(1)).join(", ")}), threads ${samples[i]!.map((s) => s.threads).join(", ")}`,
  );
}
console.log(
  `load average after: ${loadavg()
    .map((n) => n.toFixed(2))
    .join(" ")}`,
);
