// The disk under the database: the reserve (read on a timer) refuses foreground writes; a write
// failing with SQLITE_FULL marks the disk full until room is read again.
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { watchDiskSpace, type DiskState } from "../../src/db/disk-space.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { waitUntil } from "../helpers/wait.ts";

const MiB = 1024 * 1024;
const full = () => Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" });
const stops: (() => void)[] = [];
afterEach(() => {
  while (stops.length > 0) stops.pop()!();
});

/** A watcher whose free space the test sets; each reading waits for `release()` when `hold` is on. */
function watcher(reserveBytes: number) {
  let free = 100 * MiB;
  const changes: DiskState[] = [];
  const space = watchDiskSpace("/data/leads.db", { reserveBytes, everyMs: 10, freeBytes: async () => free, onChange: (state) => changes.push(state) });
  stops.push(() => space.stop());
  return { space, changes, setFree: (bytes: number) => (free = bytes) };
}

test("below the reserve foreground writes are refused with SQLITE_FULL and the state is reported once; with room again they are not", async () => {
  const { space, changes, setFree } = watcher(10 * MiB);
  await Bun.sleep(30);
  expect(space.problem()).toBeNull();
  setFree(5 * MiB);
  await waitUntil(() => space.foregroundRefusal() !== null);
  expect(space.foregroundRefusal()).toMatchObject({ code: "SQLITE_FULL" });
  expect(space.problem()).toBe(space.foregroundRefusal());
  await Bun.sleep(50);
  setFree(20 * MiB);
  await waitUntil(() => space.problem() === null);
  expect(changes).toEqual(["reserve_reached", "ok"]);
});

test("SQLITE_FULL marks the disk full; other errors do not", async () => {
  const { space, changes } = watcher(0);
  space.writeFailed(Object.assign(new Error("locked"), { code: "SQLITE_BUSY" }));
  expect(space.problem()).toBeNull();
  const error = full();
  space.writeFailed(error);
  space.writeFailed(full());
  expect(space.problem()).toBe(error);
  expect(space.foregroundRefusal()).toBeNull();
  expect(changes).toEqual(["full"]);
});

test("a full disk is cleared by reading room again (at least the reserve and 1 MiB), not by a reading taken before it failed", async () => {
  const readings: ((bytes: number) => void)[] = [];
  const space = watchDiskSpace("/data/leads.db", { reserveBytes: 0, everyMs: 5, freeBytes: () => new Promise((resolve) => void readings.push(resolve)) });
  stops.push(() => space.stop());
  // The first reading is under way when the write fails: taken before, it clears nothing.
  space.writeFailed(full());
  readings.shift()!(50 * MiB);
  await Bun.sleep(1);
  expect(space.problem()).toMatchObject({ code: "SQLITE_FULL" });
  await waitUntil(() => readings.length > 0);
  readings.shift()!(512 * 1024);
  await Bun.sleep(1);
  expect(space.problem()).toMatchObject({ code: "SQLITE_FULL" });
  await waitUntil(() => readings.length > 0);
  readings.shift()!(2 * MiB);
  await Bun.sleep(1);
  expect(space.problem()).toBeNull();
});

test('group commit: a write failing with SQLITE_FULL (SQLite rolls the transaction back) rejects the batch with it, not with "no such savepoint", and is not fail-stop; foreground writes are refused below the reserve while background ones go on', async () => {
  const sqlite = new Database(":memory:", { strict: true });
  sqlite.run("CREATE TABLE items (name TEXT)");
  stops.push(() => sqlite.close());
  let reserveReached = false;
  const seen: string[] = [];
  const committer = createGroupCommitter(sqlite, {
    diskSpace: {
      problem: () => null,
      foregroundRefusal: () => (reserveReached ? full() : null),
      writeFailed: (error) => seen.push(`failed ${(error as { code?: string }).code}`),
    },
  });
  const insert = (name: string) => () => void sqlite.run("INSERT INTO items (name) VALUES (?)", [name]);
  // A page limit stands in for the disk: the large row does not fit.
  sqlite.run(`PRAGMA max_page_count = ${(sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count + 2}`);
  await expect(committer.run(insert("x".repeat(100_000)))).rejects.toMatchObject({ code: "SQLITE_FULL" });
  expect(committer.writeFailure()).toBeNull();
  await committer.run(insert("small"));
  expect(seen).toEqual(["failed SQLITE_FULL"]);
  reserveReached = true;
  await expect(committer.run(insert("intake"))).rejects.toMatchObject({ code: "SQLITE_FULL" });
  await committer.run(insert("decision"), { background: true });
  expect(sqlite.query("SELECT name FROM items").all()).toEqual([{ name: "small" }, { name: "decision" }]);
});
