// Checkpoints off the event loop: the group committer's connection stops checkpointing itself; a
// thread does it in two passes, the second with new batches held back, so the WAL restarts.
import { afterEach, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { createGroupCommitter, type GroupCommitOptions } from "../../src/db/group-commit.ts";
import { openDatabase } from "../../src/db/client.ts";
import type { PassResult } from "../../src/db/checkpointer.ts";
import type { WalSync } from "../../src/db/wal-sync.ts";
import { tempDatabasePath } from "../helpers/server.ts";
import { manualWalSync, walRestarts } from "../helpers/wal.ts";
import { waitUntil } from "../helpers/wait.ts";

const THREAD_URL = new URL("../../src/db/checkpoint-thread.ts", import.meta.url);

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

const autocheckpoint = (sqlite: Database) => (sqlite.query("PRAGMA wal_autocheckpoint").get() as { wal_autocheckpoint: number }).wal_autocheckpoint;
const count = (sqlite: Database) => (sqlite.query("SELECT count(*) AS n FROM items").get() as { n: number }).n;
const insert = (sqlite: Database, name: string) => () => void sqlite.run("INSERT INTO items (name) VALUES (?)", [name]);

describe("with the real thread, on a file", () => {
  function fileDatabase() {
    const temp = tempDatabasePath();
    const handle = openDatabase(temp.path, { migrate: false });
    handle.sqlite.run("CREATE TABLE items (name TEXT)");
    cleanups.push(() => (handle.close(), temp.cleanup()));
    return { sqlite: handle.sqlite, walPath: `${temp.path}-wal` };
  }

  /** 300 batches of one 3 KB row each: about one WAL page per batch, so ~1.2 MB without a restart. */
  async function writeBatches(sqlite: Database, options: GroupCommitOptions) {
    const committer = createGroupCommitter(sqlite, options);
    for (let i = 0; i < 300; i++) await committer.run(insert(sqlite, `${i}`.padEnd(3000, "x")));
    return committer;
  }

  test("the connection stops checkpointing itself; the thread's checkpoints keep restarting the WAL", async () => {
    const { sqlite, walPath } = fileDatabase();
    const errors: Error[] = [];
    const committer = createGroupCommitter(sqlite, { checkpointInThread: { threadUrl: THREAD_URL, everyWrites: 20, onError: (error) => errors.push(error) } });
    // Until the WAL has been restarted three times (the thread takes a moment to start).
    let writes = 0;
    while (walRestarts(walPath) < 3 && writes < 5_000) await committer.run(insert(sqlite, `${writes++}`.padEnd(3000, "x")));
    expect(walRestarts(walPath)).toBe(3);
    expect(autocheckpoint(sqlite)).toBe(0);
    expect(errors).toEqual([]);
    expect(count(sqlite)).toBe(writes);
    await committer.drain();
    expect(autocheckpoint(sqlite)).toBe(1000);
  });

  test("a thread that cannot start is reported once, and SQLite's own checkpoints take over", async () => {
    const { sqlite } = fileDatabase();
    const errors: Error[] = [];
    const threadUrl = new URL("./no-such-thread.ts", import.meta.url);
    await writeBatches(sqlite, { checkpointInThread: { threadUrl, everyWrites: 20, onError: (error) => errors.push(error) } });
    expect(errors).toHaveLength(1);
    expect(errors[0]!.message).toContain("checkpoint");
    expect(autocheckpoint(sqlite)).toBe(1000);
    expect(count(sqlite)).toBe(300);
  });

  test.each([
    ["never answers", "silent.ts", "no answer within 50 ms"],
    ["exits", "exits.ts", "the thread exited"],
  ])("a thread that %s is reported once, and SQLite's own checkpoints take over", async (_what, file, message) => {
    const { sqlite } = fileDatabase();
    const errors: Error[] = [];
    const threadUrl = new URL(`./threads/${file}`, import.meta.url);
    await writeBatches(sqlite, { checkpointInThread: { threadUrl, everyWrites: 20, passTimeoutMs: 50, onError: (error) => errors.push(error) } });
    await waitUntil(() => errors.length > 0);
    expect(errors.map((error) => error.message)).toEqual([`checkpoint failed: ${message}`]);
    await waitUntil(() => autocheckpoint(sqlite) === 1000);
    expect(count(sqlite)).toBe(300);
  });
});

describe("the two passes (a hand-driven pass runner)", () => {
  /** A pass runner whose passes the test answers one by one. */
  function manualPasses() {
    const requested: { answer: (result: PassResult) => void; fail: (error: Error) => void }[] = [];
    const runPass = () => new Promise<PassResult>((answer, fail) => void requested.push({ answer, fail }));
    return { runPass, requested };
  }
  const done: PassResult = { busy: 0, log: 10, checkpointed: 10 };
  const turn = () => new Promise((resolve) => setImmediate(resolve));

  // An in-memory database has no WAL; a sync that answers at once stands in for one.
  const syncAtOnce: WalSync = { sync: (finished) => finished(null), release: () => {} };

  function setUp(
    extra: { maxHoldMs?: number; everyMs?: number; clock?: () => number; retryAfterMs?: number; onRecovered?: () => void } = {},
    walSync = syncAtOnce,
  ) {
    const sqlite = new Database(":memory:", { strict: true });
    sqlite.run("CREATE TABLE items (name TEXT)");
    cleanups.push(() => sqlite.close());
    const passes = manualPasses();
    const errors: Error[] = [];
    const committer = createGroupCommitter(sqlite, {
      walSync,
      checkpointInThread: { runPass: passes.runPass, everyWrites: 2, everyMs: 60_000, onError: (error) => errors.push(error), ...extra },
    });
    return { sqlite, committer, requested: passes.requested, errors };
  }

  test("no pass before `everyWrites` writes; then one, while batches keep committing", async () => {
    const { sqlite, committer, requested } = setUp();
    await committer.run(insert(sqlite, "a"));
    expect(requested).toHaveLength(0);
    await committer.run(insert(sqlite, "b"));
    expect(requested).toHaveLength(1);
    await committer.run(insert(sqlite, "c"));
    expect(count(sqlite)).toBe(3);
    expect(requested).toHaveLength(1);
  });

  test("writes committed during the first pass bring a second, and batches wait for it", async () => {
    const { sqlite, committer, requested } = setUp();
    await Promise.all([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    await committer.run(insert(sqlite, "c")); // committed while the first pass runs
    requested[0]!.answer(done);
    await turn();
    expect(requested).toHaveLength(2);
    let stored = false;
    const held = committer.run(insert(sqlite, "d")).then(() => (stored = true));
    await turn();
    await turn();
    expect(stored).toBe(false);
    expect(count(sqlite)).toBe(3);
    requested[1]!.answer(done);
    await held;
    expect(count(sqlite)).toBe(4);
  });

  test("with nothing committed during the first pass there is no second, and no hold", async () => {
    const { sqlite, committer, requested } = setUp();
    await Promise.all([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    requested[0]!.answer(done);
    await turn();
    await committer.run(insert(sqlite, "c"));
    expect(requested).toHaveLength(1);
  });

  test("a first pass blocked by another process's checkpoint ends there: no second pass, no hold", async () => {
    const { sqlite, committer, requested } = setUp();
    await Promise.all([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    await committer.run(insert(sqlite, "c"));
    requested[0]!.answer({ busy: 1, log: -1, checkpointed: -1 });
    await turn();
    expect(requested).toHaveLength(1);
    const started = performance.now();
    await committer.run(insert(sqlite, "d"));
    expect(performance.now() - started).toBeLessThan(100); // not held until maxHoldMs (250 ms)
    expect(requested).toHaveLength(2); // "c" and "d" made the next checkpoint due
  });

  test("a checkpoint is also due `everyMs` after the last one when anything was written", async () => {
    let now = 0;
    const { sqlite, committer, requested } = setUp({ everyMs: 1_000, clock: () => now });
    await committer.run(insert(sqlite, "a"));
    expect(requested).toHaveLength(0);
    now = 1_000;
    await committer.run(insert(sqlite, "b"));
    expect(requested).toHaveLength(1);
  });

  test("a WAL sync returning during the second pass leaves the writes behind it held until the pass ends", async () => {
    const { walSync, waiting: syncs } = manualWalSync();
    // A long maxHoldMs: the hold must not run out on a slow machine before the test looks.
    const { sqlite, committer, requested } = setUp({ maxHoldMs: 60_000 }, walSync);
    const first = Promise.all([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    await turn();
    syncs.shift()!(null);
    await first;
    const third = committer.run(insert(sqlite, "c")); // committed while the first pass runs
    await turn();
    requested[0]!.answer(done);
    await turn();
    expect(requested).toHaveLength(2); // the second pass: batches are held
    const fourth = committer.run(insert(sqlite, "d"));
    syncs.shift()!(null); // c's sync returns during the hold
    await third;
    await turn();
    expect(count(sqlite)).toBe(3);
    expect(syncs).toHaveLength(0);
    requested[1]!.answer(done);
    await waitUntil(() => syncs.length === 1);
    expect(count(sqlite)).toBe(4);
    syncs.shift()!(null);
    await fourth;
  });

  test("a second pass that outlasts maxHoldMs stops holding batches", async () => {
    const { sqlite, committer, requested } = setUp({ maxHoldMs: 30 });
    await Promise.all([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    await committer.run(insert(sqlite, "c"));
    requested[0]!.answer(done);
    await turn();
    const started = performance.now();
    await committer.run(insert(sqlite, "d"));
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    expect(count(sqlite)).toBe(4);
    requested[1]!.answer(done);
  });

  test("a failed pass is reported once, checkpoints go back to SQLite, and writes carry on", async () => {
    const { sqlite, committer, requested, errors } = setUp();
    expect(autocheckpoint(sqlite)).toBe(0);
    await Promise.all([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    requested[0]!.fail(new Error("disk on fire"));
    await turn();
    expect(errors.map((error) => error.message)).toEqual(["disk on fire"]);
    expect(autocheckpoint(sqlite)).toBe(1000);
    for (const name of ["c", "d", "e"]) await committer.run(insert(sqlite, name));
    expect(count(sqlite)).toBe(5);
    expect(requested).toHaveLength(1);
  });

  test("after a failed pass a new pass is tried once the backoff is over; its success takes checkpoints back off the connection", async () => {
    let now = 0;
    const recovered: number[] = [];
    const { sqlite, committer, requested, errors } = setUp({ clock: () => now, retryAfterMs: 1_000, onRecovered: () => recovered.push(now) });
    await Promise.all([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    requested[0]!.fail(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
    await turn();
    expect(autocheckpoint(sqlite)).toBe(1000);
    // Within the backoff: no pass, however much is written.
    now = 999;
    for (const name of ["c", "d", "e"]) await committer.run(insert(sqlite, name));
    expect(requested).toHaveLength(1);
    // A second failure doubles the wait and is not reported again.
    now = 1_000;
    await Promise.all([committer.run(insert(sqlite, "f")), committer.run(insert(sqlite, "g"))]);
    expect(requested).toHaveLength(2);
    requested[1]!.fail(new Error("database or disk is full"));
    await turn();
    now = 2_999;
    await Promise.all([committer.run(insert(sqlite, "h")), committer.run(insert(sqlite, "i"))]);
    expect(requested).toHaveLength(2);
    now = 3_000;
    await Promise.all([committer.run(insert(sqlite, "j")), committer.run(insert(sqlite, "k"))]);
    expect(requested).toHaveLength(3);
    requested[2]!.answer({ busy: 1, log: 10, checkpointed: 0 });
    await turn();
    expect(errors.map((error) => error.message)).toEqual(["database or disk is full"]);
    expect(recovered).toEqual([3_000]);
    expect(autocheckpoint(sqlite)).toBe(0);
    expect(count(sqlite)).toBe(11);
  });

  test("drain waits for the checkpoint in flight, then hands checkpoints back to SQLite", async () => {
    const { sqlite, committer, requested } = setUp();
    await Promise.all([committer.run(insert(sqlite, "a")), committer.run(insert(sqlite, "b"))]);
    let drained = false;
    const draining = committer.drain().then(() => (drained = true));
    await turn();
    expect(drained).toBe(false);
    requested[0]!.answer(done);
    await draining;
    expect(autocheckpoint(sqlite)).toBe(1000);
  });
});
