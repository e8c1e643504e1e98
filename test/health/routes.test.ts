// Readiness (CONTRACT §9): the database is migrated, and writes still reach the disk.
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { applyMigrations } from "../../src/db/migrate.ts";
import { healthRoutes } from "../../src/health/routes.ts";

test("/readyz is 200 on a migrated database, and 503 once a WAL sync has failed (writes stopped)", async () => {
  const sqlite = new Database(":memory:");
  applyMigrations(sqlite);
  let failure: Error | null = null;
  const app = healthRoutes(sqlite, () => failure);
  const readiness = async () => {
    const response = await app.handle(new Request("http://health.local/readyz"));
    return [response.status, await response.json()];
  };
  expect(await readiness()).toEqual([200, { status: "ready" }]);
  failure = new Error("disk gone");
  expect(await readiness()).toEqual([503, { status: "not ready" }]);
  sqlite.close();
});

test("/readyz is 503 on a database that is not migrated, and on one that is closed", async () => {
  const readiness = async (sqlite: Database) => (await healthRoutes(sqlite, () => null).handle(new Request("http://health.local/readyz"))).status;
  const bare = new Database(":memory:");
  expect(await readiness(bare)).toBe(503);
  applyMigrations(bare);
  expect(await readiness(bare)).toBe(200);
  bare.close();
  expect(await readiness(bare)).toBe(503);
});
