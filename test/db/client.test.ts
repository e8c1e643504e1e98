import { expect, test } from "bun:test";
import { openDatabase, SQLITE_CACHE_BYTES } from "../../src/db/client.ts";
import { tempDatabasePath } from "../helpers/server.ts";

test("opening migrates even while another process holds the write lock; the short busy timeout applies after", async () => {
  const temp = tempDatabasePath();
  openDatabase(temp.path).close();
  // Another process (as a CLI write would) holds the lock for 300 ms.
  const holder = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { Database } = require("bun:sqlite"); const d = new Database(${JSON.stringify(temp.path)}); d.run("BEGIN IMMEDIATE"); console.log("locked"); setTimeout(() => { d.run("COMMIT"); d.close(); }, 300);`,
    ],
    { stdout: "pipe" },
  );
  try {
    for await (const chunk of holder.stdout) if (new TextDecoder().decode(chunk).includes("locked")) break;
    const handle = openDatabase(temp.path, { busyTimeoutMs: 20 });
    expect(handle.sqlite.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 20 });
    handle.close();
  } finally {
    await holder.exited;
    temp.cleanup();
  }
});

test("the page cache is the size asked for, SQLITE_CACHE_BYTES when none is (cache_size in KiB when negative)", () => {
  const temp = tempDatabasePath();
  try {
    const sized = openDatabase(temp.path, { cacheBytes: 2 * 1024 * 1024 });
    expect(sized.sqlite.query("PRAGMA cache_size").get()).toEqual({ cache_size: -2048 });
    sized.close();
    const byDefault = openDatabase(temp.path);
    expect(byDefault.sqlite.query("PRAGMA cache_size").get()).toEqual({ cache_size: -SQLITE_CACHE_BYTES / 1024 });
    byDefault.close();
  } finally {
    temp.cleanup();
  }
});
