// Starts the real service in-process on 127.0.0.1 and an ephemeral port, on a temporary database:
// a SQLite file, or with LEAD_INGRESS_TEST_BACKEND=postgres (for the files that use
// startApiTestServer) a fresh database in a throwaway PostgreSQL cluster started once per process.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig, OPTIONS, type Config } from "../../src/config/index.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { databaseKind } from "../../src/db/kind.ts";
import { openPostgres } from "../../src/db/pg/client.ts";
import type { Store } from "../../src/store/index.ts";
import { postgresStore } from "../../src/store/pg.ts";
import { storeOn } from "../../src/store/sqlite.ts";
import { startPgCluster, type PgCluster } from "./pg-cluster.ts";
import { createLogger } from "../../src/log/index.ts";
import { startServer } from "../../src/server.ts";
import { spawnServer } from "./process.ts";
import { postgresRows, sqliteRows, type RowsQuery } from "./rows.ts";
import { basicAuthorization } from "../../src/auth/basic.ts";
import { CREDENTIALS_REFRESH_MS } from "../../src/auth/vendor-credentials.ts";

export const VENDOR = { name: "vendor-a", password: "password-a-123" };

export const basicAuth = basicAuthorization;

/** A test's server on either database. */
export interface ApiTestServer {
  url: string;
  /** The operator's console (its own listener), when the config has a consolePort. */
  consoleUrl: string | null;
  config: Config;
  /** The same tables through a connection (SQLite) or pool (PostgreSQL) of the test's own, to arrange and assert. */
  store: Store;
  /** Raw queries on the service's database ($1, $2 … placeholders on both backends). */
  rows: RowsQuery;
  auth: string;
  stop(): Promise<void>;
}

/** A test's server on SQLite. */
export interface TestServer extends ApiTestServer {
  /** A second connection to the same file, for assertions about what was stored. */
  db: DatabaseHandle;
}

export function tempDatabasePath(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "lead-ingress-test-"));
  return { path: join(dir, "test.db"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The backend the suites that can run on both use: LEAD_INGRESS_TEST_BACKEND=postgres or SQLite. */
export const TEST_BACKEND = Bun.env.LEAD_INGRESS_TEST_BACKEND === "postgres" ? "postgres" : "sqlite";

let sharedCluster: Promise<PgCluster> | undefined;

/** One cluster per test process, started on first use; its server dies with the process (pg-cluster.ts). */
export function sharedPgCluster(): Promise<PgCluster> {
  sharedCluster ??= startPgCluster();
  return sharedCluster;
}

/** A fresh, empty PostgreSQL database in the shared cluster. */
export async function freshPgDatabase(): Promise<`postgres://${string}`> {
  return (await (await sharedPgCluster()).createDatabase(`test_${crypto.randomUUID().replaceAll("-", "")}`)) as `postgres://${string}`;
}

/** On the backend LEAD_INGRESS_TEST_BACKEND names: a fresh database of the shared cluster, or a SQLite file. */
export async function startApiTestServer(overrides: Partial<Config> = {}): Promise<ApiTestServer> {
  if (TEST_BACKEND === "sqlite") return startTestServer(overrides);
  return startTestServer({ ...overrides, databasePath: await freshPgDatabase() });
}

/** A store and raw queries of the test's own on a database the service uses (a migrated SQLite file, or a PostgreSQL URL). */
export async function openTestStore(setting: string): Promise<{ store: Store; rows: RowsQuery; close(): Promise<void> }> {
  if (databaseKind(setting) === "postgres") {
    const postgres = await openPostgres(setting, { poolSize: 2, migrate: false });
    const inspector = postgresRows(setting);
    return { store: postgresStore(postgres.db), rows: inspector.rows, close: async () => (await postgres.close(), await inspector.close()) };
  }
  const db = openDatabase(setting);
  return { store: storeOn(db.db), rows: sqliteRows(db.sqlite), close: async () => db.close() };
}

/** A database for a server the test spawns itself, on the backend LEAD_INGRESS_TEST_BACKEND names. */
export interface TestDatabase {
  /** What --database takes: a SQLite file's path or a PostgreSQL URL. */
  setting: string;
  rows: RowsQuery;
  store(): Promise<Store>;
  close(): Promise<void>;
}

/** Its store and queries open on first use, once the server has created (migrated) the database. */
export async function testDatabase(): Promise<TestDatabase> {
  const temp = TEST_BACKEND === "sqlite" ? tempDatabasePath() : undefined;
  const setting = temp?.path ?? (await freshPgDatabase());
  let opened: ReturnType<typeof openTestStore> | undefined;
  const open = () => (opened ??= openTestStore(setting));
  return {
    setting,
    rows: async (query, ...params) => (await open()).rows(query, ...params),
    store: async () => (await open()).store,
    async close() {
      if (opened) await (await opened).close();
      temp?.cleanup();
    },
  };
}

/** On SQLite, unless `databasePath` is a postgres:// URL (then `db` is not there: use `store`). */
export async function startTestServer(overrides: Partial<Config> & { databasePath: `postgres://${string}` }): Promise<ApiTestServer>;
export async function startTestServer(overrides?: Partial<Config>): Promise<TestServer>;
export async function startTestServer(overrides: Partial<Config> = {}): Promise<ApiTestServer> {
  const temp = tempDatabasePath();
  const config: Config = {
    ...defaultConfig(),
    host: "127.0.0.1",
    port: 0,
    databasePath: temp.path,
    logLevel: "silent",
    bootstrapVendor: VENDOR,
    // No drain: nothing sends to a test's server once it stops, and every test would wait for it.
    shutdownDrainMs: 0,
    // A small reserve: the suite must not fail on a build machine with little free disk.
    diskReserveBytes: 8 * 1024 * 1024,
    ...overrides,
  };
  // With LEAD_INGRESS_TEST_BINARY set, the same tests run against the compiled binary.
  const server = Bun.env.LEAD_INGRESS_TEST_BINARY ? await spawnedServer(config) : await startServer(config, createLogger("silent"));
  const base = {
    url: new URL(server.url).origin,
    consoleUrl: server.consoleUrl ? new URL(server.consoleUrl).origin : null,
    config,
    auth: basicAuth(VENDOR.name, VENDOR.password),
  };
  if (databaseKind(config.databasePath) === "postgres") {
    const own = await openTestStore(config.databasePath);
    return {
      ...base,
      store: own.store,
      rows: own.rows,
      async stop() {
        await server.stop();
        await own.close();
        temp.cleanup();
      },
    };
  }
  const db = openDatabase(config.databasePath);
  const onSqlite: TestServer = {
    ...base,
    db,
    store: storeOn(db.db),
    rows: sqliteRows(db.sqlite),
    async stop() {
      await server.stop();
      db.close();
      temp.cleanup();
    },
  };
  return onSqlite;
}

/**
 * Resolves once a vendor added, disabled or changed through the test's own store is seen by the
 * server without a request that would verify it: at once on SQLite; on PostgreSQL after the
 * instance's next reload of vendors (every CREDENTIALS_REFRESH_MS), with room to spare.
 */
export async function afterVendorChange(): Promise<void> {
  if (TEST_BACKEND === "postgres") await Bun.sleep(CREDENTIALS_REFRESH_MS + 500);
}

/**
 * Resolves once the server lets these credentials in: at once on SQLite; on PostgreSQL a vendor
 * added through another connection is seen at the instance's next reload of vendors (≤ 1 s).
 */
export async function untilAuthenticates(server: { url: string }, authorization: string): Promise<void> {
  const deadline = Date.now() + 5_000;
  // An unknown lead: 404 once the vendor is known, 401 before. Each 401 counts against the address's
  // and the name's budget of failed credentials (20 at once), so ask a few times a second only: a
  // reload comes within a second.
  while ((await fetch(`${server.url}/v1/leads/${crypto.randomUUID()}`, { headers: { authorization } })).status === 401) {
    if (Date.now() > deadline) throw new Error("the server did not let the vendor in within 5 s");
    await Bun.sleep(250);
  }
}

/** The config as the command-line flags an operator would pass. */
export function configFlags(config: Config): string[] {
  const defaults = defaultConfig() as unknown as Record<string, unknown>;
  const values = config as unknown as Record<string, unknown>;
  return OPTIONS.flatMap((option) => {
    const value = values[option.key];
    if (value === undefined || option.key === "host" || option.key === "port" || option.key === "logLevel") return [];
    if (JSON.stringify(value) === JSON.stringify(defaults[option.key])) return [];
    return [option.flag, flagValue(option.key, value)];
  });
}

function flagValue(key: string, value: unknown): string {
  if (Array.isArray(value)) return value.map((item) => (typeof item === "number" ? `${item}ms` : item)).join(",");
  if (typeof value === "object" && value !== null) return `${(value as typeof VENDOR).name}:${(value as typeof VENDOR).password}`;
  return key.endsWith("Ms") ? `${value}ms` : String(value);
}

async function spawnedServer(config: Config) {
  const child = await spawnServer(configFlags(config));
  const consoleUrl = child.logs.find((entry) => entry.event === "console_listening")?.url;
  return { url: child.url, consoleUrl: consoleUrl === undefined ? null : String(consoleUrl), stop: async () => void (await child.stop()) };
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** POSTs a JSON value (or a raw string) and returns the status, headers and parsed answer. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

export async function get(url: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(url, { headers });
  return { status: response.status, headers: response.headers, body: await response.json() };
}
