// Group commit: writes handed in during one turn share a transaction; a write that throws is
// rolled back alone; promises settle only after COMMIT.
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { openDatabase } from "../../src/db/client.ts";
import { tempDatabasePath } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { manualWalSync } from "../helpers/wal.ts";

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

function memoryDatabase(): Database {
  const sqlite = new Database(":memory:", { strict: true });
  sqlite.run("CREATE TABLE items (name TEXT PRIMARY KEY)");
  cleanups.push(() => sqlite.close());
  return sqlite;
}

/** Two connections to one file: the service's, and another process's (a CLI). */
function twoConnections() {
  const temp = tempDatabasePath();
  const mine = openDatabase(temp.path, { busyTimeoutMs: 0 });
  const theirs = openDatabase(temp.path);
  cleanups.push(() => (mine.close(), theirs.close(), temp.cleanup()));
  return { mine: mine.sqlite, theirs: theirs.sqlite };
}

const names = (sqlite: Database) =>
  sqlite
    .query("SELECT name FROM items ORDER BY rowid")
    .all()
    .map((row) => (row as { name: string }).name);
const insert = (sqlite: Database, name: string) => () => {
  sqlite.run("INSERT INTO items (name) VALUES (?)", [name]);
  return name;
};

describe("createGroupCommitter", () => {
  test("resolves each write with its return value", async () => {
    const sqlite = memoryDatabase();
    const committer = createGroupCommitter(sqlite);
    expect(await Promise.all([committer.run(insert(sqlite, "a")), committer.run(() => 42)])).toEqual(["a", 42]);
    expect(names(sqlite)).toEqual(["a"]);
  });

  test("writes of one turn run in one transaction, in the order handed in", async () => {
    const sqlite = memoryDatabase();
    const committer = createGroupCommitter(sqlite);
    const seen: { name: string; inTransaction: boolean }[] = [];
    const write = (name: string) => () => {
      seen.push({ name, inTransaction: sqlite.inTransaction });
      insert(sqlite, name)();
    };
    await Promise.all(["a", "b", "c"].map((name) => committer.run(write(name))));
    expect(seen).toEqual([
      { name: "a", inTransaction: true },
      { name: "b", inTransaction: true },
      { name: "c", inTransaction: true },
    ]);
    expect(names(sqlite)).toEqual(["a", "b", "c"]);
  });

  test("one write throwing does not stop the others of the batch from committing", async () => {
    const sqlite = memoryDatabase();
    const committer = createGroupCommitter(sqlite);
    const boom = new Error("boom");
    const results = await Promise.allSettled([
      committer.run(insert(sqlite, "a")),
      committer.run(() => {
        insert(sqlite, "half-written")();
        throw boom;
      }),
      committer.run(insert(sqlite, "c")),
    ]);
    expect(results).toEqual([
      { status: "fulfilled", value: "a" },
      { status: "rejected", reason: boom },
      { status: "fulfilled", value: "c" },
    ]);
    // The failed write's own changes are rolled back; the others are committed.
    expect(names(sqlite)).toEqual(["a", "c"]);
    expect(sqlite.inTransaction).toBe(false);
  });

  test("writes run once when none throws; when one throws, the others run again and land once", async () => {
    const sqlite = memoryDatabase();
    const committer = createGroupCommitter(sqlite);
    const calls = { a: 0, b: 0 };
    const counted = (name: "a" | "b") => () => (calls[name]++, insert(sqlite, name)());
    await Promise.all([committer.run(counted("a")), committer.run(counted("b"))]);
    expect(calls).toEqual({ a: 1, b: 1 });

    const more = { c: 0 };
    const results = await Promise.allSettled([
      committer.run(() => (more.c++, insert(sqlite, "c")())),
      committer.run(() => {
        throw new Error("boom");
      }),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected"]);
    // The bare run was undone and the batch run again write by write (see group-commit.ts).
    expect(more.c).toBe(2);
    expect(names(sqlite)).toEqual(["a", "b", "c"]);
  });

  test("a write failing on a constraint rolls back only itself", async () => {
    const sqlite = memoryDatabase();
    const committer = createGroupCommitter(sqlite);
    const results = await Promise.allSettled([committer.run(insert(sqlite, "dup")), committer.run(insert(sqlite, "dup")), committer.run(insert(sqlite, "z"))]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(names(sqlite)).toEqual(["dup", "z"]);
  });

  test("a failed COMMIT rejects every write of the batch (none is told it was stored) and leaves nothing behind", async () => {
    // A deferred foreign key is checked at COMMIT, after every write's savepoint was released.
    const sqlite = memoryDatabase();
    sqlite.run("PRAGMA foreign_keys = ON");
    sqlite.run("CREATE TABLE parents (id INTEGER PRIMARY KEY)");
    sqlite.run("CREATE TABLE children (parent_id INTEGER REFERENCES parents(id) DEFERRABLE INITIALLY DEFERRED)");
    const committer = createGroupCommitter(sqlite);
    const results = await Promise.allSettled([
      committer.run(insert(sqlite, "innocent")),
      committer.run(() => sqlite.run("INSERT INTO children (parent_id) VALUES (99)")),
    ]);
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect(names(sqlite)).toEqual([]);
    expect(sqlite.inTransaction).toBe(false);

    // The committer still works afterwards.
    expect(await committer.run(insert(sqlite, "later"))).toBe("later");
    expect(names(sqlite)).toEqual(["later"]);
  });

  // Resolving before COMMIT would show up in the failed-COMMIT test above (fulfilled instead of
  // rejected); this one checks that what a resolved write reports is durable for other readers.
  test("when a batch's promises resolve, its rows are committed and visible to another connection", async () => {
    const directory = mkdtempSync(join(tmpdir(), "group-commit-"));
    const path = join(directory, "test.db");
    const writer = new Database(path, { create: true, strict: true });
    writer.run("PRAGMA journal_mode = WAL");
    writer.run("CREATE TABLE items (name TEXT PRIMARY KEY)");
    const reader = new Database(path, { strict: true });
    cleanups.push(() => {
      reader.close();
      writer.close();
      rmSync(directory, { recursive: true, force: true });
    });

    const committer = createGroupCommitter(writer);
    const visibleToOtherConnection: string[][] = [];
    const written = ["a", "b"].map((name) =>
      committer.run(insert(writer, name)).then(() => {
        expect(writer.inTransaction).toBe(false);
        visibleToOtherConnection.push(names(reader));
      }),
    );
    // Before the batch runs nothing is written; inside it, nothing is visible to another connection.
    expect(names(reader)).toEqual([]);
    await Promise.all(written);
    expect(visibleToOtherConnection).toEqual([
      ["a", "b"],
      ["a", "b"],
    ]);
  });

  test("a write handed in during a flush joins a later batch", async () => {
    const sqlite = memoryDatabase();
    const committer = createGroupCommitter(sqlite);
    let later: Promise<unknown> | undefined;
    await committer.run(() => {
      insert(sqlite, "first")();
      later = committer.run(insert(sqlite, "second"));
    });
    expect(names(sqlite)).toEqual(["first"]);
    await later;
    expect(names(sqlite)).toEqual(["first", "second"]);
  });

  test("drain waits for every write handed in so far", async () => {
    const sqlite = memoryDatabase();
    const committer = createGroupCommitter(sqlite);
    const settled: string[] = [];
    for (const name of ["a", "b", "c"]) void committer.run(insert(sqlite, name)).then(() => settled.push(name));
    await committer.drain();
    await Promise.resolve(); // the .then callbacks above run one microtask after each resolve
    expect(names(sqlite)).toEqual(["a", "b", "c"]);
    expect(settled).toEqual(["a", "b", "c"]);
  });

  test("drain with nothing pending resolves at once", async () => {
    const committer = createGroupCommitter(memoryDatabase());
    await committer.drain();
  });
});

describe("another process holding the write lock", () => {
  test("the batch waits on a timer (the event loop keeps running) and commits once the lock is free", async () => {
    const { mine, theirs } = twoConnections();
    theirs.run("BEGIN IMMEDIATE");
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 5);
    const write = createGroupCommitter(mine).run(() => mine.run("INSERT INTO suppressions VALUES ('+12125550100', null, 1)"));
    await Bun.sleep(150);
    theirs.run("COMMIT");
    await write;
    clearInterval(ticker);
    expect(ticks).toBeGreaterThan(10);
    expect(theirs.query("SELECT count(*) AS n FROM suppressions").get()).toEqual({ n: 1 });
  });

  test("a batch flushed as a WAL sync returns, finding the lock taken, still answers the synced batch and commits later", async () => {
    const { mine, theirs } = twoConnections();
    const { walSync, waiting: syncs } = manualWalSync();
    const committer = createGroupCommitter(mine, { walSync });
    const suppress = (phone: string) => () => mine.run("INSERT INTO suppressions VALUES (?, null, 1)", [phone]);
    const first = committer.run(suppress("+12125550100"));
    await waitUntil(() => syncs.length === 1);
    theirs.run("BEGIN IMMEDIATE");
    const second = committer.run(suppress("+12125550101"));
    syncs.shift()!(null); // the flush of `second` meets the other process's lock
    await first;
    await Bun.sleep(30);
    expect(syncs).toHaveLength(0);
    theirs.run("COMMIT");
    await waitUntil(() => syncs.length === 1);
    syncs.shift()!(null);
    await second;
    expect(theirs.query("SELECT count(*) AS n FROM suppressions").get()).toEqual({ n: 2 });
  });

  test("past the busy budget the batch is rejected with SQLITE_BUSY", async () => {
    const { mine, theirs } = twoConnections();
    theirs.run("BEGIN IMMEDIATE");
    const write = createGroupCommitter(mine, { busyBudgetMs: 100 }).run(() => 1);
    await expect(write).rejects.toMatchObject({ code: "SQLITE_BUSY" });
    theirs.run("ROLLBACK");
  });
});

test("a write that returns a promise is refused: no async work inside a transaction", async () => {
  const handle = openDatabase(":memory:");
  await expect(createGroupCommitter(handle.sqlite).run(async () => 1)).rejects.toThrow("must be synchronous");
  handle.close();
});

describe("background writes", () => {
  const flushCount = (handle: ReturnType<typeof openDatabase>) => {
    let commits = 0;
    const original = handle.sqlite.prepare.bind(handle.sqlite);
    // Count COMMITs by wrapping the statement the committer prepares for them.
    handle.sqlite.prepare = ((sql: string) => {
      const statement = original(sql);
      if (sql !== "COMMIT") return statement;
      const run = statement.run.bind(statement);
      statement.run = ((...args: never[]) => (commits++, run(...args))) as typeof statement.run;
      return statement;
    }) as typeof handle.sqlite.prepare;
    return () => commits;
  };

  /** A committer whose foreground is busy (HTTP requests in flight) or idle, as `busy` says now. */
  function committerWith(busy: { now: boolean }, backgroundWaveMs?: number) {
    const handle = openDatabase(":memory:");
    cleanups.push(() => handle.close());
    const commits = flushCount(handle);
    return { committer: createGroupCommitter(handle.sqlite, { foregroundBusy: () => busy.now, backgroundWaveMs }), commits };
  }
  const settled = (promise: Promise<unknown>) => {
    const state = { done: false };
    void promise.finally(() => (state.done = true));
    return state;
  };
  const LONG_WAVE_MS = 60_000;

  test("while the foreground is busy they are held, and the held ones then commit in one batch", async () => {
    const { committer, commits } = committerWith({ now: true }, LONG_WAVE_MS);
    const first = committer.run(() => "first", { background: true });
    const firstState = settled(first);
    expect(await committer.run(() => "foreground")).toBe("foreground");
    // The foreground batch committed without the held write.
    expect(commits()).toBe(1);
    expect(firstState.done).toBe(false);
    const second = committer.run(() => "second", { background: true });
    await committer.drain(); // releases the wave early; otherwise it comes when its timer fires
    expect(await Promise.all([first, second])).toEqual(["first", "second"]);
    expect(commits()).toBe(2);
  });

  test("the wave comes on its own when nothing else does", async () => {
    const { committer, commits } = committerWith({ now: true }, 5);
    expect(await Promise.all([committer.run(() => 1, { background: true }), committer.run(() => 2, { background: true })])).toEqual([1, 2]);
    expect(commits()).toBe(1);
  });

  test("with no foreground work they go at once, with any still held, joining the turn's foreground writes", async () => {
    const busy = { now: true };
    const { committer, commits } = committerWith(busy, LONG_WAVE_MS);
    const held = committer.run(() => "held", { background: true });
    busy.now = false;
    const now = committer.run(() => "now", { background: true });
    const foreground = committer.run(() => "foreground");
    expect(await Promise.all([held, now, foreground])).toEqual(["held", "now", "foreground"]);
    expect(commits()).toBe(1);
  });
});

describe("reads in the turn's shared snapshot", () => {
  const countIn = (sqlite: Database) => () => (sqlite.query("SELECT count(*) AS n FROM suppressions").get() as { n: number }).n;
  const suppress = (sqlite: Database, phone: string) => sqlite.run("INSERT INTO suppressions VALUES (?, null, 1)", [phone]);

  test("reads of one turn share one transaction; the next turn sees what others committed meanwhile", async () => {
    const { mine, theirs } = twoConnections();
    const committer = createGroupCommitter(mine);
    expect(committer.read(countIn(mine))).toBe(0);
    expect(mine.inTransaction).toBe(true);
    suppress(theirs, "+12125550100");
    expect(committer.read(countIn(mine))).toBe(0); // same snapshot, same turn
    await new Promise((resolve) => setImmediate(resolve));
    expect(mine.inTransaction).toBe(false);
    expect(committer.read(countIn(mine))).toBe(1);
  });

  test("the snapshot ends before a write batch begins, so the batch can take the write lock", async () => {
    const { mine, theirs } = twoConnections();
    const committer = createGroupCommitter(mine);
    expect(committer.read(countIn(mine))).toBe(0);
    suppress(theirs, "+12125550100");
    // Writing from a stale snapshot would fail with SQLITE_BUSY_SNAPSHOT; the batch starts fresh.
    await committer.run(() => suppress(mine, "+12125550101"));
    expect(countIn(theirs)()).toBe(2);
  });

  test("inside a write batch a read runs in the batch's own transaction and sees its writes", async () => {
    const { mine } = twoConnections();
    const committer = createGroupCommitter(mine);
    const seen = await committer.run(() => {
      suppress(mine, "+12125550100");
      return committer.read(countIn(mine));
    });
    expect(seen).toBe(1);
  });

  test("drain ends an open snapshot", async () => {
    const { mine } = twoConnections();
    const committer = createGroupCommitter(mine);
    committer.read(countIn(mine));
    await committer.drain();
    expect(mine.inTransaction).toBe(false);
  });
});

describe("durability: a batch is answered after its WAL sync", () => {
  /** Lets the event loop turn a few times (flushes run on setImmediate). */
  const turns = async () => {
    for (let i = 0; i < 3; i++) await new Promise((resolve) => setImmediate(resolve));
  };

  test("writes settle only once the sync returns, and writes handed in meanwhile wait for it, then go as one batch", async () => {
    const sqlite = memoryDatabase();
    const { walSync, waiting } = manualWalSync();
    const committer = createGroupCommitter(sqlite, { walSync });
    const settled: string[] = [];
    const first = committer.run(insert(sqlite, "a")).then((name) => settled.push(name));
    await turns();
    // Committed (visible on this connection), but not yet reported as stored.
    expect(names(sqlite)).toEqual(["a"]);
    expect(settled).toEqual([]);
    expect(waiting).toHaveLength(1);

    const later = ["b", "c"].map((name) => committer.run(insert(sqlite, name)).then((n) => settled.push(n)));
    await turns();
    expect(names(sqlite)).toEqual(["a"]);

    waiting.shift()!(null);
    await first;
    expect(settled).toEqual(["a"]);
    // b and c went in one batch, which is now waiting for its own sync.
    expect(names(sqlite)).toEqual(["a", "b", "c"]);
    expect(waiting).toHaveLength(1);
    await turns();
    expect(settled).toEqual(["a"]);
    waiting.shift()!(null);
    await Promise.all(later);
    expect(settled).toEqual(["a", "b", "c"]);
  });

  test("when a sync returns, the writes that waited for it are committed and their sync asked for before its batch is answered", async () => {
    const sqlite = memoryDatabase();
    const { walSync, waiting } = manualWalSync();
    const committer = createGroupCommitter(sqlite, { walSync });
    const seenWhenAnswered: { names: string[]; syncsAsked: number }[] = [];
    const first = committer.run(insert(sqlite, "a")).then(() => seenWhenAnswered.push({ names: names(sqlite), syncsAsked: waiting.length }));
    await turns();
    const later = committer.run(insert(sqlite, "b"));
    await turns();
    waiting.shift()!(null);
    await first;
    expect(seenWhenAnswered).toEqual([{ names: ["a", "b"], syncsAsked: 1 }]);
    waiting.shift()!(null);
    expect(await later).toBe("b");
  });

  test("once commitDuringSyncAt writes wait during a sync, they are committed before it returns, and answered only after the next sync", async () => {
    const sqlite = memoryDatabase();
    const { walSync, waiting } = manualWalSync();
    const committer = createGroupCommitter(sqlite, { walSync, commitDuringSyncAt: 2 });
    const settled: string[] = [];
    const write = (name: string) => committer.run(insert(sqlite, name)).then((n) => settled.push(n));
    const first = write("a");
    await turns();
    const one = write("b");
    await turns();
    expect(names(sqlite)).toEqual(["a"]); // one write waiting: it waits for the sync's return
    const two = write("c");
    await turns();
    // Two waiting: committed while the first sync is still in flight, and not answered.
    expect(names(sqlite)).toEqual(["a", "b", "c"]);
    expect(waiting).toHaveLength(1);
    const three = write("d");
    await turns();
    expect(names(sqlite)).toEqual(["a", "b", "c"]);

    waiting.shift()!(null);
    await first;
    // The returning sync answers only its own batch; one new sync covers b, c (committed during
    // it) and d (committed on its return).
    expect(names(sqlite)).toEqual(["a", "b", "c", "d"]);
    expect(waiting).toHaveLength(1);
    await turns();
    expect(settled).toEqual(["a"]);
    waiting.shift()!(null);
    await Promise.all([one, two, three]);
    expect(settled).toEqual(["a", "b", "c", "d"]);
  });

  test("a flush due at the end of a turn whose writes the returning sync already took commits nothing and asks for no sync", async () => {
    const sqlite = memoryDatabase();
    const { walSync, waiting } = manualWalSync();
    const committer = createGroupCommitter(sqlite, { walSync, commitDuringSyncAt: 2 });
    const first = committer.run(insert(sqlite, "a"));
    await turns();
    // In one turn: enough writes wait to schedule a flush, then the sync returns before it runs.
    const later = [committer.run(insert(sqlite, "b")), committer.run(insert(sqlite, "c"))];
    waiting.shift()!(null);
    expect(await first).toBe("a");
    await turns();
    expect(names(sqlite)).toEqual(["a", "b", "c"]);
    expect(waiting).toHaveLength(1); // b and c's sync, and no other
    waiting.shift()!(null);
    expect(await Promise.all(later)).toEqual(["b", "c"]);
    await turns();
    expect(waiting).toHaveLength(0);
  });

  test("a failed sync also rejects the batches committed while it ran", async () => {
    const sqlite = memoryDatabase();
    const { walSync, waiting } = manualWalSync();
    const committer = createGroupCommitter(sqlite, { walSync, commitDuringSyncAt: 1 });
    const first = Promise.allSettled([committer.run(insert(sqlite, "a"))]);
    await turns();
    const during = Promise.allSettled([committer.run(insert(sqlite, "b"))]);
    await turns();
    expect(names(sqlite)).toEqual(["a", "b"]);
    const error = Object.assign(new Error("disk gone"), { code: "SQLITE_IOERR_FSYNC" });
    waiting.shift()!(error);
    expect(await first).toEqual([{ status: "rejected", reason: error }]);
    expect(await during).toEqual([{ status: "rejected", reason: error }]);
    await turns();
    expect(waiting).toHaveLength(0);
  });

  test("a failed sync rejects its batch, the writes waiting behind it and every later one: writes stop", async () => {
    const sqlite = memoryDatabase();
    const { walSync, waiting } = manualWalSync();
    const failures: Error[] = [];
    const committer = createGroupCommitter(sqlite, { walSync, onStorageFailure: (error) => failures.push(error) });
    const failed = Promise.allSettled([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    await turns();
    const waitingBehind = Promise.allSettled([committer.run(insert(sqlite, "c"))]);
    const error = Object.assign(new Error("disk gone"), { code: "SQLITE_IOERR_FSYNC" });
    expect(committer.writeFailure()).toBeNull();
    waiting.shift()!(error);
    expect(await failed).toEqual([
      { status: "rejected", reason: error },
      { status: "rejected", reason: error },
    ]);
    expect(await waitingBehind).toEqual([{ status: "rejected", reason: error }]);
    await expect(committer.run(insert(sqlite, "d"))).rejects.toBe(error);
    await turns();
    expect(waiting).toHaveLength(0); // nothing more was committed or synced
    expect(names(sqlite)).toEqual(["a", "b"]); // "c" and "d" never ran
    expect(committer.writeFailure()).toBe(error);
    expect(failures).toEqual([error]);
  });

  test("a sync that answers at once (a failure to even start it) stops writes the same way", async () => {
    const sqlite = memoryDatabase();
    const error = Object.assign(new Error("no WAL"), { code: "SQLITE_IOERR_FSYNC" });
    const walSync = { sync: (done: (error: Error | null) => void) => done(error), release: () => {} };
    const committer = createGroupCommitter(sqlite, { walSync });
    await expect(committer.run(insert(sqlite, "a"))).rejects.toBe(error);
    await expect(committer.run(insert(sqlite, "b"))).rejects.toBe(error);
    expect(names(sqlite)).toEqual(["a"]);
  });

  test("drain waits for the sync in flight, then lets go of the WAL", async () => {
    const sqlite = memoryDatabase();
    const { walSync, waiting, released } = manualWalSync();
    const committer = createGroupCommitter(sqlite, { walSync });
    let settled = false;
    void committer.run(insert(sqlite, "a")).then(() => (settled = true));
    let drained = false;
    const draining = committer.drain().then(() => (drained = true));
    await turns();
    expect(drained).toBe(false);
    waiting.shift()!(null);
    await draining;
    expect(settled).toBe(true);
    expect(released()).toBe(1);
  });
});
