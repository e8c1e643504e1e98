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
import { basicAuthorization } from "../../src/auth/basic.ts";

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

/** A store of the test's own on a database the service uses (a migrated SQLite file, or a PostgreSQL URL). */
export async function openTestStore(setting: string): Promise<{ store: Store; close(): Promise<void> }> {
  if (databaseKind(setting) === "postgres") {
    const postgres = await openPostgres(setting, { poolSize: 2, migrate: false });
    return { store: postgresStore(postgres.db), close: () => postgres.close() };
  }
  const db = openDatabase(setting);
  return { store: storeOn(db.db), close: async () => db.close() };
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
  const server = Bun.env.LEAD_INGRESS_TEST_BINARY
    ? await spawnedServer(config)
    : await startServer(config, createLogger("silent"));
  const base = { url: new URL(server.url).origin, consoleUrl: server.consoleUrl ? new URL(server.consoleUrl).origin : null, config, auth: basicAuth(VENDOR.name, VENDOR.password) };
  if (databaseKind(config.databasePath) === "postgres") {
    const own = await openTestStore(config.databasePath);
    return {
      ...base,
      store: own.store,
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
    async stop() {
      await server.stop();
      db.close();
      temp.cleanup();
    },
  };
  return onSqlite;
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
