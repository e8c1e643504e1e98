// Turns at SQLite's write lock between intake's connection and the worker thread's (write-turns.ts):
// intake goes first, a side waits for the other's turn without blocking its event loop, a turn a
// dead thread held is handed back, and a batch waits for a turn at most its limit.
import { afterEach, describe, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { resetWorkerTurn, TURN_WORDS, writeTurn } from "../../src/db/write-turns.ts";
import { tempDatabasePath } from "../helpers/server.ts";

const cleanups: (() => void)[] = [];
const writeTurnsMemory = () => new Int32Array(new SharedArrayBuffer(TURN_WORDS * Int32Array.BYTES_PER_ELEMENT));
afterEach(() => {
  while (cleanups.length > 0) cleanups.pop()!();
});

/** Resolves true if `promise` settles within `ms`. */
const settlesWithin = (promise: Promise<unknown>, ms: number) => Promise.race([promise.then(() => true), Bun.sleep(ms).then(() => false)]);

describe("writeTurn", () => {
  test("a side that finds the other's turn waits until it is released, then takes its own", async () => {
    const memory = writeTurnsMemory();
    const intake = writeTurn(memory, "intake");
    const worker = writeTurn(memory, "worker");
    expect(worker.take()).toBeNull();
    const waiting = intake.take();
    expect(waiting).toBeInstanceOf(Promise);
    expect(await settlesWithin(waiting!, 30)).toBe(false);
    worker.release();
    expect(await settlesWithin(waiting!, 50)).toBe(true);
    expect(intake.take()).toBeNull();
    intake.release();
  });

  test("intake goes first: the worker takes no turn while an intake batch waits for one", async () => {
    const memory = writeTurnsMemory();
    const intake = writeTurn(memory, "intake");
    const worker = writeTurn(memory, "worker");
    expect(worker.take()).toBeNull();
    expect(intake.take()).toBeInstanceOf(Promise); // intake now waits
    worker.release();
    const workerAgain = worker.take();
    expect(workerAgain).toBeInstanceOf(Promise);
    expect(intake.take()).toBeNull();
    expect(await settlesWithin(workerAgain!, 30)).toBe(false);
    intake.release();
    expect(await settlesWithin(workerAgain!, 50)).toBe(true);
    expect(worker.take()).toBeNull();
  });

  test("a turn held by a thread that died is handed back", async () => {
    const memory = writeTurnsMemory();
    const intake = writeTurn(memory, "intake");
    expect(writeTurn(memory, "worker").take()).toBeNull();
    const waiting = intake.take()!;
    resetWorkerTurn(memory);
    expect(await settlesWithin(waiting, 50)).toBe(true);
    expect(intake.take()).toBeNull();
  });

  test("a side waits for the other's turn at most its limit, then begins anyway", async () => {
    const memory = writeTurnsMemory();
    const intake = writeTurn(memory, "intake", 40);
    expect(writeTurn(memory, "worker").take()).toBeNull();
    const started = Date.now();
    for (let wait = intake.take(); wait; wait = intake.take()) await wait;
    expect(Date.now() - started).toBeGreaterThanOrEqual(35);
    expect(Date.now() - started).toBeLessThan(500);
  });
});

describe("group commit with write turns", () => {
  test("an intake batch meeting the worker's transaction waits for its turn without sleeping on the event loop, then commits", async () => {
    const temp = tempDatabasePath();
    // Intake's connection with a long busy timeout: had it begun while the worker holds the lock,
    // SQLite's busy handler would block this event loop (and so the worker's COMMIT, on the same
    // thread here) for 5 s. (A loaded machine delays timers by some 100 ms: hence the margin.)
    const intakeDb = openDatabase(temp.path, { busyTimeoutMs: 5_000 });
    const workerDb = openDatabase(temp.path, { migrate: false, busyTimeoutMs: 0 });
    cleanups.push(() => (workerDb.sqlite.close(), intakeDb.close(), temp.cleanup()));
    intakeDb.sqlite.run("CREATE TABLE items (name TEXT PRIMARY KEY)");
    const memory = writeTurnsMemory();
    const committer = createGroupCommitter(intakeDb.sqlite, { writeTurn: writeTurn(memory, "intake") });
    const worker = writeTurn(memory, "worker");

    expect(worker.take()).toBeNull();
    workerDb.sqlite.run("BEGIN IMMEDIATE");
    workerDb.sqlite.run("INSERT INTO items (name) VALUES ('worker')");
    const written = committer.run(() => intakeDb.sqlite.run("INSERT INTO items (name) VALUES ('intake')"));
    let longestGapMs = 0;
    let last = performance.now();
    const ticker = setInterval(() => {
      longestGapMs = Math.max(longestGapMs, performance.now() - last);
      last = performance.now();
    }, 2);
    try {
      expect(await settlesWithin(written, 150)).toBe(false);
      expect(longestGapMs).toBeLessThan(2_000);
      workerDb.sqlite.run("COMMIT");
      worker.release();
      expect(await settlesWithin(written, 200)).toBe(true);
      expect(longestGapMs).toBeLessThan(2_000);
    } finally {
      clearInterval(ticker);
    }
    const names = intakeDb.sqlite.query<{ name: string }, []>("SELECT name FROM items ORDER BY rowid").all();
    expect(names.map((row) => row.name)).toEqual(["worker", "intake"]);
    await committer.drain();
  });
});
