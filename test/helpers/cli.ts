// Runs an operator command as the operator would: the product as a separate process (the compiled
// binary under LEAD_INGRESS_TEST_BINARY), from the repository's root, on a database file or URL
// (which a test server may be using at the same time).
import { join } from "node:path";
import { openDatabase } from "../../src/db/client.ts";
import { productCommand } from "./process.ts";
import { tempDatabasePath } from "./server.ts";

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** `lead-ingress ARGS… --database DATABASE`; resolves when the process has exited. */
export async function cli(database: string, ...args: string[]): Promise<CliRun> {
  return run([...args, "--database", database]);
}

const ROOT = join(import.meta.dir, "../..");

/** `lead-ingress ARGS…` exactly as given, with `stdin` as its standard input (none by default) and `env` added to the environment. */
export async function run(args: string[], stdin?: string, env: Record<string, string> = {}): Promise<CliRun> {
  const child = Bun.spawn([...productCommand(), ...args], {
    cwd: ROOT,
    env: { ...Bun.env, ...env },
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, out, err };
}

/** A fresh, migrated database file with no server on it. */
export function emptyDatabase(): { path: string; cleanup: () => void } {
  const temp = tempDatabasePath();
  openDatabase(temp.path).close();
  return temp;
}
