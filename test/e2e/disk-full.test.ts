// A full disk (CONTRACT §9): readiness fails while writes fail, the worker backs off instead of
// spinning, the reserve keeps room to decide and call back what was accepted, and once space
// returns the service recovers by itself, checkpoint thread included. On a real small filesystem:
// a tmpfs of a few MiB that the test fills with a file and frees again.
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { join } from "node:path";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { validLead } from "../helpers/leads.ts";
import { spawnServer, type ServerProcess } from "../helpers/process.ts";
import { basicAuth, post, VENDOR } from "../helpers/server.ts";
import { mountSmallDisk, type SmallDisk } from "../helpers/small-disk.ts";
import { walRestarts } from "../helpers/wal.ts";
import { waitUntil } from "../helpers/wait.ts";

const AUTH = { authorization: basicAuth(VENDOR.name, VENDOR.password) };
const cleanups: (() => unknown)[] = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()!();
});

/** A tmpfs, or null (with the reason logged) where the test cannot mount one. */
function smallDisk(mib: number): SmallDisk | null {
  const disk = mountSmallDisk(mib);
  if (typeof disk === "string") {
    console.log(`disk-full test skipped: ${disk}`);
    return null;
  }
  console.log(`disk-full test on a ${mib} MiB tmpfs at ${disk.dir}`);
  cleanups.push(() => disk.unmount());
  return disk;
}

async function start(disk: SmallDisk, receiver: MockReceiver, args: string[]) {
  const server = await spawnServer([
    "--database", join(disk.dir, "leads.db"),
    "--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`,
    "--hold-period", "2s",
    "--worker-poll-interval", "20ms",
    "--allow-private-callbacks",
    ...args,
  ]);
  cleanups.push(() => server.stop("SIGKILL"));
  const postLead = (lead = validLead({ call_back_url: `${receiver.url.origin}/cb` })) => post(`${server.url}/v1/postLead`, lead, AUTH);
  const ready = async () => (await fetch(`${server.url}/readyz`)).status;
  return { server, postLead, ready };
}

function receiverFor() {
  const receiver = startMockReceiver();
  cleanups.push(() => receiver.stop());
  return receiver;
}

const calledBack = (receiver: MockReceiver) => new Set(receiver.received("/cb").map((callback) => (JSON.parse(callback.body) as { lead_id: string }).lead_id));
const events = (server: ServerProcess, event: string) => server.logs.filter((line) => line.event === event);

function pendingLeads(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return (db.query("SELECT count(*) AS n FROM leads WHERE status = 'pending'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

test("tmpfs: while the disk is full intake and readiness answer 503 and the worker backs off; once space is freed, without a restart, every accepted lead is decided and called back, checkpoints restart the WAL and intake is back", async () => {
  const disk = smallDisk(24);
  if (!disk) return;
  const receiver = receiverFor();
  const { server, postLead, ready } = await start(disk, receiver, ["--disk-reserve", "0"]);
  const accepted: string[] = [];
  for (let i = 0; i < 20; i++) accepted.push((await postLead()).body.lead_id);

  disk.fill();
  // Intake takes what room the WAL still has, then gets 503.
  let answer = await postLead();
  for (let i = 0; answer.status === 200 && i < 20_000; i++) {
    accepted.push(answer.body.lead_id);
    answer = await postLead();
  }
  expect(answer.status).toBe(503);
  expect(answer.body).toEqual({ success_bit: false, message: [{ error: "Service temporarily unavailable" }] });
  expect(await ready()).toBe(503);

  // The hold is over while the disk is full: the worker's writes fail, and it backs off.
  await Bun.sleep(2_500);
  const failuresBefore = events(server, "worker_error").length;
  const attemptsBefore = events(server, "callback_attempt_failed").length;
  await Bun.sleep(1_000);
  expect(events(server, "worker_error").length).toBeLessThanOrEqual(1);
  expect(events(server, "worker_error").length - failuresBefore).toBe(0);
  expect(events(server, "callback_attempt_failed").length - attemptsBefore).toBeLessThanOrEqual(64);
  expect(await ready()).toBe(503);

  disk.unfill();
  await waitUntil(async () => (await ready()) === 200, 10_000, 100);
  await waitUntil(() => accepted.every((id) => calledBack(receiver).has(id)), 30_000, 100);
  expect(pendingLeads(join(disk.dir, "leads.db"))).toBe(0);
  // The checkpoint thread works again: with intake going on, it keeps restarting the WAL.
  if (events(server, "checkpoint_thread_failed").length > 0) await waitUntil(() => events(server, "checkpoint_thread_recovered").length === 1, 35_000, 100);
  const restarts = walRestarts(join(disk.dir, "leads.db-wal"));
  for (let i = 0; i < 20 && walRestarts(join(disk.dir, "leads.db-wal")) < restarts + 2; i++) {
    expect((await postLead()).status).toBe(200);
    await Bun.sleep(200);
  }
  expect(walRestarts(join(disk.dir, "leads.db-wal"))).toBeGreaterThanOrEqual(restarts + 2);
  expect(events(server, "worker_recovered").length).toBeGreaterThanOrEqual(1);
}, 90_000);

test("tmpfs: below the reserve intake gets 503 and readiness fails, while the leads already accepted are still decided and called back; with room again intake is back", async () => {
  const disk = smallDisk(32);
  if (!disk) return;
  const receiver = receiverFor();
  const { server, postLead, ready } = await start(disk, receiver, ["--disk-reserve", "12MiB"]);
  expect(await ready()).toBe(200);
  const accepted: string[] = [];
  for (let i = 0; i < 20; i++) accepted.push((await postLead()).body.lead_id);

  disk.fill(8 * 1024 * 1024);
  // The free space is read once a second.
  await waitUntil(async () => (await ready()) === 503, 3_000, 50);
  const refused = await postLead();
  expect(refused.status).toBe(503);
  expect(refused.body).toEqual({ success_bit: false, message: [{ error: "Service temporarily unavailable" }] });
  expect(events(server, "disk_space_low")).toHaveLength(1);
  await waitUntil(() => accepted.every((id) => calledBack(receiver).has(id)), 15_000, 100);
  expect(pendingLeads(join(disk.dir, "leads.db"))).toBe(0);
  expect(events(server, "worker_error")).toEqual([]);

  disk.unfill();
  await waitUntil(async () => (await ready()) === 200, 3_000, 50);
  expect((await postLead()).status).toBe(200);
}, 60_000);
