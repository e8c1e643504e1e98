import { expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { IDEMPOTENCY_TTL_MS } from "../../src/intake/service.ts";
import { groupCommittedStore } from "../../src/store/sqlite.ts";
import { createMaintenanceJob } from "../../src/worker/maintenance.ts";

test("idempotency keys older than 24 h are deleted, in chunks, at most once a minute; newer ones stay", async () => {
  const handle = openDatabase(":memory:");
  const now = Date.UTC(2026, 0, 2);
  const insert = handle.sqlite.prepare("INSERT INTO idempotency_keys (vendor_id, key, request_hash, lead_id, created_at) VALUES ('v', ?, 'h', 'l', ?)");
  for (let i = 0; i < 6_000; i++) insert.run(`old-${i}`, now - IDEMPOTENCY_TTL_MS - 1);
  insert.run("fresh", now);
  let clock = now;
  const job = createMaintenanceJob({
    store: groupCommittedStore(handle.db, createGroupCommitter(handle.sqlite)),
    clock: () => clock,
    refusalRetentionMs: 30 * 86_400_000,
  });
  const count = () => (handle.sqlite.query("SELECT count(*) AS n FROM idempotency_keys").get() as { n: number }).n;

  expect(await job.runOnce()).toBe(5_000); // a full chunk: more remain
  expect(await job.runOnce()).toBe(1_000);
  expect(count()).toBe(1);
  insert.run("old-again", now - IDEMPOTENCY_TTL_MS - 1);
  expect(await job.runOnce()).toBe(0); // finished less than a minute ago
  clock += 60_000;
  expect(await job.runOnce()).toBe(1);
  expect(handle.sqlite.query("SELECT key FROM idempotency_keys").all()).toEqual([{ key: "fresh" }]);
  handle.close();
});

test("a paused endpoint left by an instance that died goes an hour after its pause ended; a current one stays", async () => {
  const handle = openDatabase(":memory:");
  const now = Date.UTC(2026, 0, 2);
  const insert = handle.sqlite.prepare(
    "INSERT INTO paused_endpoints (endpoint, vendor_id, target, failures, last_error, paused_at, paused_until) VALUES (?, 'v', 't', 5, NULL, ?, ?)",
  );
  insert.run("left", now - 7_200_000, now - 3_600_001);
  insert.run("recent", now - 3_600_000, now - 3_000_000);
  insert.run("current", now - 1_000, now + 4_000);
  const job = createMaintenanceJob({
    store: groupCommittedStore(handle.db, createGroupCommitter(handle.sqlite)),
    clock: () => now,
    refusalRetentionMs: 30 * 86_400_000,
  });
  await job.runOnce();
  expect(handle.sqlite.query("SELECT endpoint FROM paused_endpoints ORDER BY endpoint").all()).toEqual([{ endpoint: "current" }, { endpoint: "recent" }]);
  handle.close();
});

test("cap counters of windows that ended are deleted; the current window's stay", async () => {
  const handle = openDatabase(":memory:");
  const now = Date.UTC(2026, 0, 2, 12);
  const insert = handle.sqlite.prepare("INSERT INTO cap_usage (cap_name, bucket, window_start, window_end, used) VALUES (?, '', ?, ?, 3)");
  insert.run("yesterday", now - 36 * 3_600_000, now - 12 * 3_600_000);
  insert.run("ended-now", now - 60_000, now);
  insert.run("today", now - 12 * 3_600_000, now + 12 * 3_600_000);
  const job = createMaintenanceJob({
    store: groupCommittedStore(handle.db, createGroupCommitter(handle.sqlite)),
    clock: () => now,
    refusalRetentionMs: 30 * 86_400_000,
  });
  await job.runOnce();
  expect(handle.sqlite.query("SELECT cap_name FROM cap_usage").all()).toEqual([{ cap_name: "today" }]);
  handle.close();
});
