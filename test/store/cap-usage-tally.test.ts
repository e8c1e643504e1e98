// SQLite's cap counters within a group-commit batch (store/cap-usage/sqlite-tally.ts): the batch's
// slots are counted in memory and each counter written once before COMMIT, exactly as a statement
// per slot would leave it: a write undone gives its slots back, a batch that fails keeps none.
import { afterEach, expect, test } from "bun:test";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { op } from "../../src/db/script.ts";
import type { CapCounter } from "../../src/store/cap-usage/index.ts";
import { groupCommittedStore, sqliteTransactionParticipants } from "../../src/store/sqlite.ts";

const counter = (over: Partial<CapCounter> = {}): CapCounter => ({ name: "daily", bucket: "", windowStart: 1_000, windowEnd: 2_000, max: 3, ...over });

let database: DatabaseHandle;
afterEach(() => database?.sqlite.close());

function serviceStore() {
  database = openDatabase(":memory:");
  const commit = createGroupCommitter(database.sqlite, { participants: sqliteTransactionParticipants(database.db), walSync: null });
  return groupCommittedStore(database.db, commit);
}
interface CounterRow {
  cap_name: string;
  bucket: string;
  window_start: number;
  window_end: number;
  used: number;
}
const rows = () =>
  database.sqlite.query<CounterRow, []>("SELECT cap_name, bucket, window_start, window_end, used FROM cap_usage ORDER BY cap_name, bucket").all();

test("one batch's takers of 2 free slots: exactly 2 get one, and the row holds the count after COMMIT", async () => {
  const store = serviceStore();
  await store.write((t) => op(t.capUsage.take(counter())));
  // Written in one turn: one batch, one transaction.
  const taken = await Promise.all(Array.from({ length: 10 }, () => store.write((t) => op(t.capUsage.take(counter())))));
  expect(taken.filter(Boolean)).toHaveLength(2);
  expect(rows()).toEqual([{ cap_name: "daily", bucket: "", window_start: 1_000, window_end: 2_000, used: 3 }]);
  expect(await store.read((t) => op(t.capUsage.used(counter())))).toBe(3);
});

test("a write that fails after taking slots gives them back; the batch's others keep theirs", async () => {
  const store = serviceStore();
  const writes = [
    store.write((t) => op(t.capUsage.take(counter({ bucket: "a" })))),
    store.write(function* (t) {
      yield* op(t.capUsage.take(counter({ bucket: "a" })));
      yield* op(t.capUsage.take(counter({ bucket: "b" })));
      throw new Error("refused later");
    }),
    store.write((t) => op(t.capUsage.take(counter({ bucket: "b" })))),
  ];
  const settled = await Promise.allSettled(writes);
  expect(settled.map((s) => s.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
  expect(rows().map((row) => [row.bucket, row.used])).toEqual([
    ["a", 1],
    ["b", 1],
  ]);
});

test("within a write, the count read is the batch's, slots taken so far included", async () => {
  const store = serviceStore();
  const seen = await Promise.all([
    store.write((t) => op(t.capUsage.take(counter()))),
    store.write(function* (t) {
      yield* op(t.capUsage.take(counter()));
      return yield* op(t.capUsage.used(counter()));
    }),
  ]);
  expect(seen).toEqual([true, 2]);
});

test("a batch whose COMMIT fails keeps no slot, and the next batch counts from the stored row", async () => {
  const store = serviceStore();
  await store.write((t) => op(t.capUsage.take(counter())));
  // A trigger that fails the counter's write, which only the batch's end makes: COMMIT never runs.
  database.sqlite.run("CREATE TEMP TRIGGER fail_count BEFORE UPDATE ON cap_usage BEGIN SELECT RAISE(ABORT, 'disk said no'); END");
  const failed = await Promise.allSettled([store.write((t) => op(t.capUsage.take(counter()))), store.write((t) => op(t.capUsage.take(counter())))]);
  expect(failed.map((s) => s.status)).toEqual(["rejected", "rejected"]);
  database.sqlite.run("DROP TRIGGER fail_count");
  expect(rows().map((row) => row.used)).toEqual([1]);
  const taken = await Promise.all(Array.from({ length: 4 }, () => store.write((t) => op(t.capUsage.take(counter())))));
  expect(taken).toEqual([true, true, false, false]);
  expect(rows().map((row) => row.used)).toEqual([3]);
});
