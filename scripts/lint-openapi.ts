#!/usr/bin/env bun
// Lints the OpenAPI document the service serves at /swagger/json with @redocly/cli (redocly.yaml).
//   bun scripts/lint-openapi.ts            the document of this checkout (app built in-process)
//   bun scripts/lint-openapi.ts URL        the document of a running instance, e.g. the binary
// The document is kept as artifacts/openapi.json for CI.
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { defaultConfig } from "../src/config/index.ts";
import { openDatabase } from "../src/db/client.ts";
import { createApp } from "../src/app.ts";
import { createLogger } from "../src/log/index.ts";
import { createMetrics } from "../src/metrics/index.ts";
import { createGroupCommitter } from "../src/db/group-commit.ts";
import { sqliteBackend } from "../src/backend/index.ts";

const ROOT = join(import.meta.dir, "..");
const LINT_TIMEOUT_MS = 120_000;

async function fetchDocument(baseUrl: string | undefined): Promise<string> {
  if (baseUrl) {
    const response = await fetch(new URL("/swagger/json", baseUrl), { signal: AbortSignal.timeout(10_000) });
    if (!response.ok) throw new Error(`GET /swagger/json answered ${response.status}`);
    return response.text();
  }
  // The real app on a throwaway in-memory database: no port, no files.
  const database = openDatabase(":memory:");
  try {
    const app = createApp({
      config: { ...defaultConfig(), databasePath: ":memory:" },
      backend: sqliteBackend(database, createGroupCommitter(database.sqlite)),
      log: createLogger("silent"),
      metrics: createMetrics(),
    });
    return await (await app.handle(new Request("http://localhost/swagger/json"))).text();
  } finally {
    database.close();
  }
}

const document = await fetchDocument(process.argv[2]);
mkdirSync(join(ROOT, "artifacts"), { recursive: true });
const file = join(ROOT, "artifacts/openapi.json");
await Bun.write(file, JSON.stringify(JSON.parse(document), null, 2));

// @redocly/cli runs under Node; no telemetry or update check (CI and air-gapped machines).
const lint = Bun.spawn([join(ROOT, "node_modules/.bin/redocly"), "lint", file, "--config", join(ROOT, "redocly.yaml")], {
  cwd: ROOT,
  env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  stdout: "inherit",
  stderr: "inherit",
  timeout: LINT_TIMEOUT_MS,
});
process.exit(await lint.exited);
