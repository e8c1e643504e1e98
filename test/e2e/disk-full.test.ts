// A full disk (docs/contract.md §9): readiness fails while writes fail, the worker backs off instead of
// spinning, the reserve keeps room to decide and call back what was accepted, and once space
// returns the service recovers by itself, checkpoint thread included. On a real small filesystem
// (a tmpfs of a few MiB that the test fills with a file and frees again) where the test can mount
// one, else with SQLite's page limit.
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { postLead } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { loadConfig } from "../../src/config/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createLogger } from "../../src/log/index.ts";
import { startServer } from "../../src/server.ts";
import { spawnServer } from "../helpers/process.ts";
import { basicAuth, tempDatabasePath, VENDOR } from "../helpers/server.ts";
import { mountSmallDisk } from "../helpers/small-disk.ts";
import { walRestarts } from "../helpers/wal.ts";
import { waitUntil } from "../helpers/wait.ts";

const AUTH = { authorization: basicAuth(VENDOR.name, VENDOR.password) };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** The service on a disk the test fills and frees; `logs` are its JSON log lines. */
interface ServiceOnSmallDisk {
  method: "tmpfs" | "max_page_count";
  url: string;
  databasePath: string;
  logs: Record<string, unknown>[];
  /** Fills the disk until `leaveBytes` are free. */
  fill(leaveBytes?: number): void;
  unfill(): void;
}

/**
 * On a tmpfs of `mib` MiB where one can be mounted (root), the real binary or source as a process;
 * else in-process, with SQLite's max_page_count on the server's connection for a full disk and a
 * stand-in for the free space read. The log says which.
 */
async function startOnSmallDisk(mib: number, flags: string[]): Promise<ServiceOnSmallDisk> {
  const disk = mountSmallDisk(mib);
  if (typeof disk === "string") {
    console.log(`disk-full test with SQLite's max_page_count (${disk})`);
    return startWithPageLimit(flags);
  }
  console.log(`disk-full test on a ${mib} MiB tmpfs at ${disk.dir}`);
  cleanups.push(() => disk.unmount());
  const databasePath = join(disk.dir, "leads.db");
  const server = await spawnServer(["--database", databasePath, ...flags]);
  cleanups.push(() => server.stop("SIGKILL"));
  return { method: "tmpfs", url: server.url, databasePath, logs: server.logs, fill: (leaveBytes) => disk.fill(leaveBytes), unfill: () => disk.unfill() };
}

async function startWithPageLimit(flags: string[]): Promise<ServiceOnSmallDisk> {
  const temp = tempDatabasePath();
  const config = loadConfig({}, ["--host", "127.0.0.1", "--port", "0", "--database", temp.path, ...flags]);
  const database = openDatabase(temp.path, { busyTimeoutMs: 20 });
  const logs: Record<string, unknown>[] = [];
  let free = 1024 ** 3;
  const server = await startServer(
    config,
    createLogger("info", (line) => void logs.push(JSON.parse(line))),
    { database, freeBytes: async () => free },
  );
  cleanups.push(async () => {
    await server.stop();
    temp.cleanup();
  });
  return {
    method: "max_page_count",
    url: server.url.origin,
    databasePath: temp.path,
    logs,
    fill(leaveBytes = 0) {
      free = leaveBytes;
      // Below the pages the file has, SQLite takes its current size: no page can be added.
      if (leaveBytes === 0) database.sqlite.run("PRAGMA max_page_count = 1");
    },
    unfill() {
      free = 1024 ** 3;
      database.sqlite.run("PRAGMA max_page_count = 4294967294");
    },
  };
}

const FLAGS = ["--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`, "--hold-period", "2s", "--worker-poll-interval", "20ms", "--allow-private-callbacks"];

async function start(mib: number, receiver: MockReceiver, flags: string[]) {
  const service = await startOnSmallDisk(mib, [...FLAGS, ...flags]);
  /** A lead whose callback goes to the receiver's /cb. */
  const sendLead = (lead = validLead({ call_back_url: `${receiver.url.origin}/cb` })) => postLead(service, AUTH.authorization, lead);
  const ready = async () => (await fetch(`${service.url}/readyz`)).status;
  return { service, sendLead, ready };
}

function receiverFor() {
  const receiver = startMockReceiver();
  cleanups.push(() => receiver.stop());
  return receiver;
}

const calledBack = (receiver: MockReceiver) => new Set(receiver.received("/cb").map((callback) => (JSON.parse(callback.body) as { lead_id: string }).lead_id));
const events = (service: ServiceOnSmallDisk, event: string) => service.logs.filter((line) => line.event === event);

function pendingLeads(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM leads WHERE status = 'pending'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

test("while the disk is full intake and readiness answer 503 and the worker backs off; once space is freed, without a restart, every accepted lead is decided and called back, checkpoints restart the WAL and intake is back", async () => {
  const receiver = receiverFor();
  const { service, sendLead, ready } = await start(24, receiver, ["--disk-reserve", "0"]);
  const accepted: string[] = [];
  for (let i = 0; i < 20; i++) accepted.push((await sendLead()).body.lead_id);

  service.fill();
  // Intake takes what room the WAL still has, then gets 503.
  let answer = await sendLead();
  for (let i = 0; answer.status === 200 && i < 20_000; i++) {
    accepted.push(answer.body.lead_id);
    answer = await sendLead();
  }
  expect(answer.status).toBe(503);
  expect(answer.body).toEqual({ success_bit: false, message: [{ error: "Service temporarily unavailable" }] });
  expect(await ready()).toBe(503);

  // The hold is over while the disk is full: the worker's writes fail, and it backs off, its run
  // of failures reported once. (A write that fails with intake's at the moment the disk fills, and
  // then passes alone with nothing to write, is a run of its own that ended: reported, and its end.)
  await Bun.sleep(2_500);
  // On a loaded machine the worker may come to the held leads later: wait for its run of failures.
  await waitUntil(() => events(service, "worker_error").length - events(service, "worker_recovered").length === 1, 15_000, 50);
  const failuresBefore = events(service, "worker_error").length;
  const attemptsBefore = events(service, "callback_attempt_failed").length;
  await Bun.sleep(1_000);
  expect(events(service, "worker_error").length - events(service, "worker_recovered").length).toBe(1);
  expect(events(service, "worker_error").length - failuresBefore).toBe(0);
  expect(events(service, "callback_attempt_failed").length - attemptsBefore).toBeLessThanOrEqual(64);
  // Under a page limit an update still fits: a worker's write may succeed, and readiness then
  // rightly says so. On a full disk none does.
  if (service.method === "tmpfs") expect(await ready()).toBe(503);

  service.unfill();
  await waitUntil(async () => (await ready()) === 200, 10_000, 100);
  await waitUntil(() => accepted.every((id) => calledBack(receiver).has(id)), 30_000, 100);
  expect(pendingLeads(service.databasePath)).toBe(0);
  // The checkpoint thread works again: with intake going on, it keeps restarting the WAL.
  if (events(service, "checkpoint_thread_failed").length > 0) await waitUntil(() => events(service, "checkpoint_thread_recovered").length === 1, 35_000, 100);
  const restarts = walRestarts(`${service.databasePath}-wal`);
  for (let i = 0; i < 20 && walRestarts(`${service.databasePath}-wal`) < restarts + 2; i++) {
    expect((await sendLead()).status).toBe(200);
    await Bun.sleep(200);
  }
  expect(walRestarts(`${service.databasePath}-wal`)).toBeGreaterThanOrEqual(restarts + 2);
  expect(events(service, "worker_recovered").length).toBeGreaterThanOrEqual(1);
}, 90_000);

test("below the reserve intake gets 503 and readiness fails, while the leads already accepted are still decided and called back; with room again intake is back", async () => {
  const receiver = receiverFor();
  const { service, sendLead, ready } = await start(32, receiver, ["--disk-reserve", "12MiB"]);
  expect(await ready()).toBe(200);
  const accepted: string[] = [];
  for (let i = 0; i < 20; i++) accepted.push((await sendLead()).body.lead_id);

  service.fill(8 * 1024 * 1024);
  // The free space is read once a second.
  await waitUntil(async () => (await ready()) === 503, 10_000, 50);
  const refused = await sendLead();
  expect(refused.status).toBe(503);
  expect(refused.body).toEqual({ success_bit: false, message: [{ error: "Service temporarily unavailable" }] });
  expect(events(service, "disk_space_low")).toEqual([expect.objectContaining({ level: "error" })]);
  // Visible to Prometheus too (the StorageFailure alert of monitoring/alerts.yml).
  expect(await (await fetch(`${service.url}/metrics`)).text()).toContain("\nlead_ingress_ready 0\n");
  await waitUntil(() => accepted.every((id) => calledBack(receiver).has(id)), 15_000, 100);
  expect(pendingLeads(service.databasePath)).toBe(0);
  expect(events(service, "worker_error")).toEqual([]);

  service.unfill();
  await waitUntil(async () => (await ready()) === 200, 10_000, 50);
  expect((await sendLead()).status).toBe(200);
}, 60_000);
