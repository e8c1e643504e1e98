// Starts the real service in-process on 127.0.0.1 and an ephemeral port, on a temporary database.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig, OPTIONS, type Config } from "../../src/config/index.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createLogger } from "../../src/log/index.ts";
import { startServer } from "../../src/server.ts";
import { spawnServer } from "./process.ts";
import { basicAuthorization } from "../../src/auth/basic.ts";

export const VENDOR = { name: "vendor-a", password: "password-a-123" };

export const basicAuth = basicAuthorization;

export interface TestServer {
  url: string;
  config: Config;
  /** A second connection to the same file, for assertions about what was stored. */
  db: DatabaseHandle;
  auth: string;
  stop(): Promise<void>;
}

export function tempDatabasePath(): { path: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "lead-ingress-test-"));
  return { path: join(dir, "test.db"), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export async function startTestServer(overrides: Partial<Config> = {}): Promise<TestServer> {
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
  const db = openDatabase(config.databasePath);
  return {
    url: new URL(server.url).origin,
    config,
    db,
    auth: basicAuth(VENDOR.name, VENDOR.password),
    async stop() {
      await server.stop();
      db.close();
      temp.cleanup();
    },
  };
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
  return { url: child.url, stop: async () => void (await child.stop()) };
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
