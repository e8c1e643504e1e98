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
  const job = createMaintenanceJob({ store: groupCommittedStore(handle.db, createGroupCommitter(handle.sqlite)), clock: () => clock });
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
