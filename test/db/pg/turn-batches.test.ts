// Intake's batches (db/pg/turn-batches.ts) when the database does not answer within the wait's
// bound: the requests gathered behind the failed batch get their 503 with it, instead of waiting
// for a batch of their own to time out again.
import { expect, test } from "bun:test";
import { DatabaseWaitTimeout } from "../../../src/db/pg/bounded-waits.ts";
import { turnBatches } from "../../../src/db/pg/turn-batches.ts";

test("a batch failing with DatabaseWaitTimeout fails the requests gathered behind it at once; another error does not", async () => {
  const runs: number[][] = [];
  let fail: (error: unknown) => void = () => {};
  const submit = turnBatches<number, number>(
    async (batch) => {
      runs.push(batch.map((w) => w.item));
      await new Promise((_, reject) => (fail = reject));
    },
    { maxBatch: 10, maxInFlight: 1 },
  );
  const first = submit(1);
  await Bun.sleep(5); // the first batch is on its way; the next requests gather behind it
  const behind = [submit(2), submit(3)];
  const answers = Promise.allSettled([first, ...behind]);
  fail(new DatabaseWaitTimeout(5_000));
  for (const answer of await answers) expect(answer.status === "rejected" && answer.reason).toBeInstanceOf(DatabaseWaitTimeout);
  await Bun.sleep(5);
  expect(runs).toEqual([[1]]);

  const next = submit(4);
  await Bun.sleep(5);
  const gathered = submit(5);
  void gathered.catch(() => {});
  fail(new Error("a failure a second batch may not have"));
  await expect(next).rejects.toThrow("a failure a second batch may not have");
  await Bun.sleep(5);
  expect(runs).toEqual([[1], [4], [5]]); // the request behind it ran in a batch of its own
  fail(new Error("done"));
  await expect(gathered).rejects.toThrow("done");
});
