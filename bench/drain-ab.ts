// `bun bench/drain-ab.ts DIR_A DIR_B [rounds=4] [callbacks=40000]`: the server's CPU per callback
// delivered, two checkouts (A before a change, B after) in alternating rounds (A first in odd
// rounds, B first in even ones), so the machine's drift falls on both alike. Each round seeds
// `callbacks` decided leads, their callbacks due, into a fresh SQLite file, starts that checkout's
// server with its worker, and counts its CPU (/proc) from the first poll of the delivered count to
// the last callback delivered, to this checkout's mock receiver (its own process, answering 200 at
// once). Prints each round, the medians and the pair ratios B/A (issue 30 goal 3, bench/README.md).
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cpuSeconds } from "./cpu.ts";
import { startReceiver } from "./receiver.ts";
import { seedLeads } from "./seed.ts";
import { startServer } from "./server.ts";
import { discardTmp, phoneBlocks, positiveInteger, runBenchmark } from "./settings.ts";

const REPO_DIR = resolve(import.meta.dir, "..");
const [dirA, dirB] = [process.argv[2], process.argv[3]].map((dir) => resolve(dir ?? "."));
const rounds = positiveInteger(process.argv[4], 4, 100);
const count = positiveInteger(process.argv[5], 40_000, 1_000_000);
const DRAIN_TIMEOUT_MS = 300_000;
const tmp = mkdtempSync(join(tmpdir(), "lead-ingress-bench-drain-ab-"));
let phoneStart = phoneBlocks("drainAb").drainAb;

/** One drain by the checkout in `dir`: µs of server CPU per callback delivered. */
async function drain(dir: string, run: number): Promise<number> {
  const databasePath = join(tmp, `drain-${run}.db`);
  const logPath = join(tmp, `server-${run}.log`);
  // A first start creates and migrates the database and its 'bench' vendor.
  await (await startServer({ binary: undefined, databasePath, logPath, repoDir: dir, flags: ["--worker", "false"] })).stop();
  const receiver = await startReceiver({ repoDir: REPO_DIR, logPath: join(tmp, `receiver-${run}.log`) });
  seedLeads(databasePath, count, (phoneStart += count), { callbackUrl: `${receiver.url}/callback` });
  const server = await startServer({
    binary: undefined,
    databasePath,
    logPath,
    repoDir: dir,
    flags: ["--worker", "true", "--allow-private-callbacks", "--worker-poll-interval", "50ms"],
  });
  const sqlite = new Database(databasePath, { readonly: true });
  const delivered = () => (sqlite.query("SELECT count(*) AS n FROM callbacks WHERE status = 'delivered'").get() as { n: number }).n;
  try {
    const first = { delivered: delivered(), cpu: cpuSeconds(server.pid), at: Date.now() };
    let now = first.delivered;
    while (now < count && Date.now() - first.at < DRAIN_TIMEOUT_MS) {
      await Bun.sleep(100);
      now = delivered();
    }
    const cpu = cpuSeconds(server.pid) - first.cpu;
    const measured = now - first.delivered;
    const perCallback = (cpu * 1e6) / Math.max(1, measured);
    console.log(
      `${dir === dirA ? "A" : "B"} ${dir}: ${measured} delivered in ${((Date.now() - first.at) / 1000).toFixed(1)} s, server ${perCallback.toFixed(1)} µs CPU per callback, load ${loadavg()[0]!.toFixed(1)}`,
    );
    return perCallback;
  } finally {
    sqlite.close();
    await server.stop();
    await receiver.stop();
    for (const suffix of ["", "-wal", "-shm"]) rmSync(databasePath + suffix, { force: true });
  }
}

async function main() {
  const a: number[] = [];
  const b: number[] = [];
  let run = 0;
  for (let round = 0; round < rounds; round++)
    for (const side of round % 2 === 0 ? ["A", "B"] : ["B", "A"]) (side === "A" ? a : b).push(await drain(side === "A" ? dirA! : dirB!, run++));
  const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
  console.log(
    `median µs per callback: A ${median(a).toFixed(1)}, B ${median(b).toFixed(1)}; B/A per round ${a.map((x, i) => (b[i]! / x).toFixed(3)).join(" ")}`,
  );
}

await runBenchmark(main, async () => discardTmp(tmp), tmp);
