import { describe, expect, test } from "bun:test";
import { op, runAwaiting, runNow, type Op, type Script } from "../../src/db/script.ts";

// One script, run over a synchronous table and over an asynchronous one.
function* transfer(read: (key: string) => Op<number>, amount: number): Script<number> {
  const from = yield* op(read("from"));
  const to = yield* op(read("to"));
  return from - amount + to;
}

describe("scripts over table operations", () => {
  test("runNow completes a script over synchronous operations in one call", () => {
    expect(runNow(transfer((key) => (key === "from" ? 10 : 5), 3))).toBe(12);
  });

  test("runAwaiting runs the same script over operations that answer with promises", async () => {
    expect(await runAwaiting(transfer(async (key) => (key === "from" ? 10 : 5), 3))).toBe(12);
  });

  test("runNow refuses a promise: a SQLite write must never wait inside the group commit", () => {
    expect(() => runNow(transfer(async () => 1, 0))).toThrow("a synchronous store answered with a promise");
  });

  test("a rejected operation is thrown into the script, whose own handling runs", async () => {
    function* guarded(): Script<string> {
      try {
        yield* op(Promise.reject(new Error("unique violation")));
        return "stored";
      } catch (error) {
        return `refused: ${(error as Error).message}`;
      }
    }
    expect(await runAwaiting(guarded())).toBe("refused: unique violation");
  });

  test("an error the script does not handle rejects the run", async () => {
    expect(runAwaiting(transfer(() => Promise.reject(new Error("connection lost")), 1))).rejects.toThrow("connection lost");
  });
});
