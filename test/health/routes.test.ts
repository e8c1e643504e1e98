// Readiness (docs/contract.md §9): the database is migrated, and writes still reach the disk.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { sqliteReady } from "../../src/backend/index.ts";
import { applyMigrations } from "../../src/db/migrate.ts";
import { healthRoutes, healthWhileStarting } from "../../src/health/routes.ts";

const readiness = async (ready: () => boolean | Promise<boolean>) => {
  const response = await healthRoutes(ready).handle(new Request("http://health.local/readyz"));
  return [response.status, await response.json()];
};

test("/readyz is 200 on a migrated SQLite database, and 503 once a WAL sync has failed (writes stopped)", async () => {
  const sqlite = new Database(":memory:");
  applyMigrations(sqlite);
  let failure: Error | null = null;
  const ready = () => sqliteReady(sqlite, () => failure);
  expect(await readiness(ready)).toEqual([200, { status: "ready" }]);
  failure = new Error("disk gone");
  expect(await readiness(ready)).toEqual([503, { status: "not ready" }]);
  sqlite.close();
});

test("/readyz is 503 on a SQLite database that is not migrated, and on one that is closed", async () => {
  const bare = new Database(":memory:");
  const ready = () => sqliteReady(bare, () => null);
  expect((await readiness(ready))[0]).toBe(503);
  applyMigrations(bare);
  expect((await readiness(ready))[0]).toBe(200);
  bare.close();
  expect((await readiness(ready))[0]).toBe(503);
});

test("/readyz waits for an answer that is a promise (PostgreSQL's)", async () => {
  expect(await readiness(async () => true)).toEqual([200, { status: "ready" }]);
  expect(await readiness(async () => false)).toEqual([503, { status: "not ready" }]);
});

test("while the service waits for its database at start: /healthz 200 (alive), /readyz 503 (not ready), the same bodies as once started; other paths are the caller's", async () => {
  const live = healthWhileStarting("/healthz")!;
  const notReady = healthWhileStarting("/readyz")!;
  expect([live.status, await live.json()]).toEqual([200, { status: "ok" }]);
  expect([notReady.status, await notReady.json()]).toEqual([503, { status: "not ready" }]);
  const started = await healthRoutes(() => false).handle(new Request("http://health.local/healthz"));
  expect(await started.json()).toEqual({ status: "ok" });
  expect(healthWhileStarting("/v1/postLead")).toBeNull();
});
