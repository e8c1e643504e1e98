// The PostgreSQL migrations: applied once on a fresh database, in drizzle's own bookkeeping table,
// all or nothing, and exactly once when several instances start together.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { MigrationMeta } from "drizzle-orm/migrator";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openPostgres, type PostgresHandle } from "../../../src/db/pg/client.ts";
import { applyMigrations, isMigrated, PG_MIGRATIONS } from "../../../src/db/pg/migrate.ts";
import { callbacks, phoneClaims, vendors } from "../../../src/db/pg/schema.ts";
import { startPgCluster, type PgCluster } from "../../helpers/pg-cluster.ts";

let cluster: PgCluster;
const handles: PostgresHandle[] = [];
beforeAll(async () => {
  cluster = await startPgCluster();
});
afterAll(async () => {
  await Promise.all(handles.map((handle) => handle.close()));
  await cluster.stop();
});

async function open(url: string, migrate = false): Promise<PostgresHandle> {
  const handle = await openPostgres(url, { migrate, poolSize: 2 });
  handles.push(handle);
  return handle;
}

async function publicTables(handle: PostgresHandle): Promise<string[]> {
  const rows = await handle.sql`select tablename from pg_tables where schemaname = 'public' order by tablename`;
  return rows.map((row: { tablename: string }) => row.tablename);
}

const appliedHashes = async (handle: PostgresHandle): Promise<string[]> =>
  (await handle.sql`select hash from drizzle.__drizzle_migrations order by created_at`).map((row: { hash: string }) => row.hash);

test("on a fresh database the embedded migrations create every table and are recorded in drizzle's table; a second apply does nothing", async () => {
  const handle = await open(await cluster.createDatabase());
  expect(PG_MIGRATIONS.length).toBeGreaterThan(0);
  expect(await isMigrated(handle.db)).toBe(false);

  expect(await applyMigrations(handle.db)).toBe(PG_MIGRATIONS.length);
  expect(await isMigrated(handle.db)).toBe(true);
  expect(await publicTables(handle)).toEqual([
    "audit_log",
    "callback_attempts",
    "callbacks",
    "cap_usage",
    "idempotency_keys",
    "lead_findings",
    "leads",
    "operator_sessions",
    "operators",
    "outcome_counts",
    "paused_endpoints",
    "phone_claims",
    "policy",
    "portal_sessions",
    "refusals",
    "secrets",
    "suppressions",
    "vendors",
  ]);
  expect(await appliedHashes(handle)).toEqual(PG_MIGRATIONS.map((migration) => migration.hash));

  expect(await applyMigrations(handle.db)).toBe(0);
  expect(await appliedHashes(handle)).toHaveLength(PG_MIGRATIONS.length);
});

test("a failing migration leaves nothing applied: the tables of the ones before it are rolled back too", async () => {
  const handle = await open(await cluster.createDatabase());
  const broken: MigrationMeta = { sql: ["create table half (x int)", "select * from no_such_table"], bps: true, folderMillis: Date.now(), hash: "broken" };
  await expect(applyMigrations(handle.db, [...PG_MIGRATIONS, broken])).rejects.toThrow(/no_such_table/);
  expect(await isMigrated(handle.db)).toBe(false);
  expect(await publicTables(handle)).toEqual([]);
});

/** Runs `drizzle-kit migrate` on the committed drizzle/pg folder against `url`. */
async function drizzleKitMigrate(url: string): Promise<void> {
  const root = join(import.meta.dir, "../../..");
  const dir = mkdtempSync(join(tmpdir(), "lead-ingress-drizzle-kit-"));
  try {
    const config = join(dir, "drizzle.config.json");
    writeFileSync(config, JSON.stringify({ dialect: "postgresql", out: join(root, "drizzle/pg"), dbCredentials: { url } }));
    const child = Bun.spawn([process.execPath, "x", "drizzle-kit", "migrate", "--config", config], { cwd: root, stdout: "pipe", stderr: "pipe" });
    const [output, exitCode] = await Promise.all([new Response(child.stderr).text(), child.exited]);
    if (exitCode !== 0) throw new Error(`drizzle-kit migrate exited with ${exitCode}: ${output}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("drizzle-kit agrees on what is applied: after its migrate ours applies nothing, and after ours its migrate adds nothing", async () => {
  const migratedByDrizzleKit = await cluster.createDatabase();
  await drizzleKitMigrate(migratedByDrizzleKit);
  expect(await applyMigrations((await open(migratedByDrizzleKit)).db)).toBe(0);

  const migratedByUs = await cluster.createDatabase();
  const handle = await open(migratedByUs);
  await applyMigrations(handle.db);
  await drizzleKitMigrate(migratedByUs);
  expect(await appliedHashes(handle)).toEqual(PG_MIGRATIONS.map((migration) => migration.hash));
});

// drizzle's own migrate() fails here: it reads the applied state before its transaction and takes
// no lock, so 4 of 5 instances failed with duplicate pg_type/pg_class keys or "relation
// __drizzle_migrations already exists" (measured with both drivers, three runs each).
test("five instances migrating one fresh database at once: exactly one applies the migrations, none fails", async () => {
  const url = await cluster.createDatabase();
  const instances = await Promise.all(Array.from({ length: 5 }, () => open(url)));
  const applied = await Promise.all(instances.map((instance) => applyMigrations(instance.db)));
  expect(applied.sort()).toEqual([0, 0, 0, 0, PG_MIGRATIONS.length]);
  expect(await appliedHashes(instances[0]!)).toHaveLength(PG_MIGRATIONS.length);
});

test("openPostgres migrates unless told not to; 64-bit keys, ms times and booleans come back as the SQLite schema's types", async () => {
  const url = await cluster.createDatabase();
  expect(await isMigrated((await open(url, false)).db)).toBe(false);
  const { db } = await open(url, true);
  expect(await isMigrated(db)).toBe(true);

  const now = 1_795_000_000_123;
  const leadKey = -(2n ** 62n) - 12_345n;
  await db.insert(vendors).values({ id: "v1", name: "acme", passwordHash: "h", signingSecret: "s", createdAt: now, updatedAt: now });
  await db.insert(phoneClaims).values({ phoneNumber: 12_125_550_123, leadId: "l1", claimedAt: now });
  await db
    .insert(callbacks)
    .values({ id: "msg_1", leadKey, leadId: "l1", vendorId: "v1", url: "https://x.io/cb", status: "held", createdAt: now, updatedAt: now });
  expect(await db.select({ enabled: vendors.enabled, createdAt: vendors.createdAt }).from(vendors)).toEqual([{ enabled: true, createdAt: now }]);
  expect(await db.select({ phoneNumber: phoneClaims.phoneNumber }).from(phoneClaims)).toEqual([{ phoneNumber: 12_125_550_123 }]);
  expect(await db.select({ leadKey: callbacks.leadKey, attemptCount: callbacks.attemptCount }).from(callbacks)).toEqual([{ leadKey, attemptCount: 0 }]);
});

test("openPostgres on an unreachable server fails with an error naming the server and database but not the password", async () => {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = listener.port;
  listener.stop(true); // nothing listens there now
  const opening = openPostgres(`postgres://app:s3cret@127.0.0.1:${port}/leads`, { poolSize: 1 });
  await expect(opening).rejects.toThrow(`could not open PostgreSQL at 127.0.0.1:${port}/leads: Failed to connect`);
  await expect(opening).rejects.not.toThrow(/s3cret/);
});

test("0002 keeps every attempt counted: a callback replayed before it (its count reset) counts its recorded attempts again, its retry schedule where it was", async () => {
  const handle = await open(await cluster.createDatabase());
  const index = PG_MIGRATIONS.findIndex((migration) => migration.sql.some((statement) => statement.includes("attempts_before_replay")));
  expect(index).toBeGreaterThan(0);
  await applyMigrations(handle.db, PG_MIGRATIONS.slice(0, index));
  // [recorded attempts, attempt_count]: replayed after 3 and tried once since; never replayed; held.
  const rows = [
    [4, 1],
    [2, 2],
    [0, 0],
  ] as const;
  for (const [i, [recorded, count]] of rows.entries()) {
    await handle.sql`insert into callbacks (lead_key, id, lead_id, vendor_id, url, status, attempt_count, created_at, updated_at)
      values (${i}, ${`msg_${i}`}, ${`lead-${i}`}, 'v1', 'u', 'pending', ${count}, 0, 0)`;
    for (let n = 1; n <= recorded; n++)
      await handle.sql`insert into callback_attempts (callback_id, attempt_no, started_at, duration_ms) values (${`msg_${i}`}, ${n}, 0, 1)`;
  }

  await applyMigrations(handle.db);
  expect(await handle.sql`select id, attempt_count, attempts_before_replay from callbacks order by id`).toEqual([
    { id: "msg_0", attempt_count: 4, attempts_before_replay: 3 },
    { id: "msg_1", attempt_count: 2, attempts_before_replay: 0 },
    { id: "msg_2", attempt_count: 0, attempts_before_replay: 0 },
  ]);
});

test("0017 folds the campaigns of the leads still pending with SQL's lower(), and leaves the decided ones' unset", async () => {
  const handle = await open(await cluster.createDatabase());
  const index = PG_MIGRATIONS.findIndex((migration) => migration.sql.some((statement) => statement.includes("campaign_folded")));
  expect(index).toBeGreaterThan(0);
  await applyMigrations(handle.db, PG_MIGRATIONS.slice(0, index));
  await handle.sql`insert into vendors (id, name, password_hash, signing_secret, enabled, created_at, updated_at) values ('v1', 'a', 'h', 's', true, 0, 0)`;
  for (const [key, campaign, status] of [
    [1, "Solar-Q4", "pending"],
    [2, "Wind", "accepted"],
  ] as const)
    await handle.sql`insert into leads (id_key, id, vendor_id, phone_e164, customer_name, state, city, zip, street, dm_name, utility, mailing_street, mailing_city, mailing_zip, mailing_state, vendor_campaign_name, email, raw_request, status, created_at, decide_after)
      values (${key}, ${`lead-${key}`}, 'v1', '+12125550100', 'n', 'NY', 'c', '10001', 's', 'd', 'u', 's', 'c', '10001', 'NY', ${campaign}, 'e@x.io', '{}', ${status}, 0, 0)`;

  await applyMigrations(handle.db);
  expect(await handle.sql`select id, campaign_folded from leads order by id`).toEqual([
    { id: "lead-1", campaign_folded: "solar-q4" },
    { id: "lead-2", campaign_folded: null },
  ]);
});
