// The WAL syncer the group committer uses on a database file (see src/db/wal-sync.ts).
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { rmSync } from "node:fs";
import { openDatabase } from "../../src/db/client.ts";
import { walSyncFor } from "../../src/db/wal-sync.ts";
import { tempDatabasePath } from "../helpers/server.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

const synchronous = (sqlite: Database) => (sqlite.query("PRAGMA synchronous").get() as { synchronous: number }).synchronous;

test("an in-memory database has nothing to sync", () => {
  expect(walSyncFor(new Database(":memory:"))).toBeNull();
});

test("on a file, commits stop syncing by themselves and the WAL is fsynced on request", async () => {
  const temp = tempDatabasePath();
  const handle = openDatabase(temp.path);
  cleanups.push(() => (handle.close(), temp.cleanup()));
  expect(synchronous(handle.sqlite)).toBe(2); // FULL, as every connection opens
  const wal = walSyncFor(handle.sqlite)!;
  expect(synchronous(handle.sqlite)).toBe(1); // NORMAL: the syncer takes over
  handle.sqlite.run("INSERT INTO suppressions (phone_e164, created_at) VALUES ('+12125550123', 0)");
  expect(await new Promise((done) => wal.sync(done))).toBeNull();
  wal.release();
});

test("a sync that fails is reported as SQLite's own I/O error, through the callback", async () => {
  const temp = tempDatabasePath();
  const handle = openDatabase(temp.path);
  cleanups.push(() => (handle.close(), temp.cleanup()));
  const wal = walSyncFor(handle.sqlite)!;
  // No WAL file to open (it exists only after a write).
  rmSync(`${temp.path}-wal`, { force: true });
  const error = await new Promise<Error | null>((done) => wal.sync(done));
  expect(error).toMatchObject({ code: "SQLITE_IOERR_FSYNC" });
});
