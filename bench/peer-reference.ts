// The peer's saturated postLead rate on this machine, now (issue 30 goal 3): the Fastify +
// better-sqlite3 intake service of ../shared/peer, driven by its own wrk harness (bench.sh,
// 50 connections, random valid numbers) for BENCH_PEER_SECONDS (default 20). bench:steady measures
// it just before its search, so its highest sustained rate can be read as a ratio to a figure taken
// the same minute: the machine's speed changes from day to day by 2x, ratios within a run do not.
// The peer's source: BENCH_PEER_SRC (default ../shared/peer beside the checkout); it is installed
// once into BENCH_PEER_DIR (default ~/.cache/lead-ingress-peer, the side-by-side script's). Without
// the source or wrk it is skipped with a line saying why (BENCH_PEER=0 skips it on purpose).
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { $ } from "bun";
import { freePort, stopChild } from "./server.ts";
import { positiveInteger } from "./settings.ts";

const env = process.env;

/** The peer's requests per second, or why it was not measured. */
export type PeerReference = { rps: number } | { skipped: string };

export async function measurePeerPostLead(repoDir: string): Promise<PeerReference> {
  if (env.BENCH_PEER === "0") return { skipped: "BENCH_PEER=0" };
  const source = resolve(env.BENCH_PEER_SRC ?? join(repoDir, "..", "shared", "peer"));
  if (!existsSync(join(source, "bench.sh"))) return { skipped: `no peer at ${source} (BENCH_PEER_SRC)` };
  if (!Bun.which("wrk")) return { skipped: "wrk not found (apt-get install -y wrk)" };
  const installed = resolve(env.BENCH_PEER_DIR ?? join(homedir(), ".cache", "lead-ingress-peer"));
  await installPeer(source, installed);
  const seconds = positiveInteger(env.BENCH_PEER_SECONDS, 20, 600);
  const dir = mkdtempSync(join(tmpdir(), "lead-ingress-peer-"));
  const port = freePort();
  const peer = Bun.spawn(["node", "src/server.js"], {
    cwd: installed,
    env: { ...env, PORT: String(port), DB_PATH: join(dir, "peer.db") },
    stdout: "ignore",
    stderr: "ignore",
  });
  try {
    await waitForPeer(`http://127.0.0.1:${port}/`);
    const out = await $`bash ${join(source, "bench.sh")} ${`http://127.0.0.1:${port}`} bench bench-pass ${seconds} 50 postLead`
      .env({ ...env, WARMUP: "2" })
      .quiet()
      .text();
    const rps = Number(out.match(/^RESULT.*\brps=([0-9.]+)/m)?.[1]);
    return Number.isFinite(rps) && rps > 0 ? { rps } : { skipped: `no RESULT line from the peer's wrk run:\n${out}` };
  } finally {
    await stopChild(peer);
    rmSync(dir, { recursive: true, force: true });
  }
}

/** npm ci of the peer, once (about 2 minutes: better-sqlite3 builds). */
async function installPeer(source: string, installed: string): Promise<void> {
  if (existsSync(join(installed, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node"))) return;
  console.log(`installing the peer into ${installed} (once)`);
  await $`mkdir -p ${installed} && cp -r ${join(source, "fastify-sqlite")}/. ${installed}/`.quiet();
  await $`npm ci --no-audit --no-fund`.cwd(installed).quiet();
}

async function waitForPeer(url: string): Promise<void> {
  for (let i = 0; i < 100; i++) {
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await Bun.sleep(200);
  }
  throw new Error(`the peer did not answer at ${url}`);
}

/** How the highest sustained rate compares with the peer's, and the issue's goal for the backend. */
export function peerRatioLine(best: number | undefined, reference: PeerReference, backend: string): string {
  if (!("rps" in reference)) return `peer reference skipped: ${reference.skipped}`;
  const goal = backend === "sqlite" ? 2.5 : 1;
  const ratio = best === undefined ? 0 : best / reference.rps;
  return `highest sustained / peer's saturated postLead (${reference.rps.toFixed(0)}/s): ${ratio.toFixed(2)}x (goal ${goal}x on ${backend})`;
}
