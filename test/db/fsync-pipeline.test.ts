// The group committer's fsync pipeline on its own: its states (idle, syncing, stopped), one fsync
// in flight at a time, and fail-stop.
import { expect, test } from "bun:test";
import type { Pending } from "../../src/db/batch.ts";
import { fsyncPipeline } from "../../src/db/fsync-pipeline.ts";
import { manualWalSync } from "../helpers/wal.ts";

/** A one-write batch whose answer lands in `answers`. */
function batchOf(name: string, answers: string[]): Pending[] {
  return [{ write: () => name, resolve: () => answers.push(`${name} stored`), reject: (error) => answers.push(`${name} failed: ${(error as Error).message}`) }];
}
const ok = (value: string) => [{ ok: true as const, value }];
const noHooks = { commitWaiting: () => {}, afterReturn: () => {} };

test("idle, then syncing while the fsync is in flight (later batches wait for the next), idle again once both returned", () => {
  const { walSync, waiting } = manualWalSync();
  const answers: string[] = [];
  const pipeline = fsyncPipeline(walSync, noHooks);
  expect(pipeline.state.kind).toBe("idle");
  expect(pipeline.whenReturned()).toBeNull();

  pipeline.committed(batchOf("a", answers), ok("a"));
  pipeline.committed(batchOf("b", answers), ok("b"));
  expect(pipeline.state.kind).toBe("syncing");
  expect(waiting).toHaveLength(1); // b waits for the next fsync, not a second one at once

  waiting.shift()!(null);
  expect(answers).toEqual(["a stored"]);
  expect(pipeline.state.kind).toBe("syncing"); // b's fsync started before a was answered
  waiting.shift()!(null);
  expect(answers).toEqual(["a stored", "b stored"]);
  expect(pipeline.state.kind).toBe("idle");
});

test("a failed fsync stops the pipeline for good: its batches and those waiting behind it fail, with its error", () => {
  const { walSync, waiting } = manualWalSync();
  const answers: string[] = [];
  const failures: Error[] = [];
  const pipeline = fsyncPipeline(walSync, { ...noHooks, onStorageFailure: (error) => failures.push(error) });
  pipeline.committed(batchOf("a", answers), ok("a"));
  pipeline.committed(batchOf("b", answers), ok("b"));
  const disk = new Error("EIO");
  waiting.shift()!(disk);
  expect(answers).toEqual(["a failed: EIO", "b failed: EIO"]);
  expect(pipeline.state).toEqual({ kind: "stopped", failure: disk });
  expect(failures).toEqual([disk]);
});

test("when an fsync returns, the waiting writes are committed first, then its batches answered, then the rest scheduled", async () => {
  const { walSync, waiting } = manualWalSync();
  const order: string[] = [];
  const pipeline = fsyncPipeline(walSync, { commitWaiting: () => order.push("commit waiting"), afterReturn: () => order.push("schedule the rest") });
  pipeline.committed([{ write: () => "a", resolve: () => order.push("a answered"), reject: () => {} }], ok("a"));
  const returned = pipeline.whenReturned()!.then(() => order.push("drain sees it returned"));
  waiting.shift()!(null);
  await returned;
  expect(order).toEqual(["commit waiting", "a answered", "schedule the rest", "drain sees it returned"]);
});

test("without a WAL (an in-memory database) a batch is answered at once", () => {
  const answers: string[] = [];
  const pipeline = fsyncPipeline(null, noHooks);
  pipeline.committed(batchOf("a", answers), ok("a"));
  expect(answers).toEqual(["a stored"]);
  expect(pipeline.state.kind).toBe("idle");
});
