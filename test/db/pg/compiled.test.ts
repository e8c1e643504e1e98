// The compiled binary reaches PostgreSQL: Bun's SQL client and the migrations (embedded by the
// macro, no drizzle/ folder beside the binary) work inside `bun build --compile`. The build takes
// about 0.3 s here.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { SQL } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PG_MIGRATIONS } from "../../../src/db/pg/migrate.ts";
import { startPgCluster, type PgCluster } from "../../helpers/pg-cluster.ts";

let cluster: PgCluster;
let dir: string;
beforeAll(async () => {
  cluster = await startPgCluster();
  dir = mkdtempSync(join(tmpdir(), "lead-ingress-pg-binary-"));
});
afterAll(async () => {
  await cluster.stop();
  rmSync(dir, { recursive: true, force: true });
});

async function run(command: string[], cwd: string): Promise<string> {
  const child = Bun.spawn(command, { cwd, stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  if (exitCode !== 0) throw new Error(`${command.join(" ")} exited with ${exitCode}: ${stderr}`);
  return stdout;
}

test("a compiled binary, run away from the source tree, opens a fresh PostgreSQL database and applies the embedded migrations", async () => {
  const binary = join(dir, "pg-entry");
  await run(
    [process.execPath, "build", "--compile", "--minify", "--outfile", binary, join(import.meta.dir, "compiled-entry.ts")],
    join(import.meta.dir, "../../.."),
  );
  const url = await cluster.createDatabase();

  expect(JSON.parse(await run([binary, url], dir))).toEqual({ migrated: true, embedded: PG_MIGRATIONS.length });
  const client = new SQL(url);
  const [row] = await client`select count(*)::int as applied from drizzle.__drizzle_migrations`;
  await client.close();
  expect(row.applied).toBe(PG_MIGRATIONS.length);
});
