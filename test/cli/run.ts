// Runs an operator command as the operator would: the product as a separate process, on a database
// file (which a test server may be using at the same time).
import { openDatabase } from "../../src/db/client.ts";
import { productCommand } from "../helpers/process.ts";
import { tempDatabasePath } from "../helpers/server.ts";

export interface CliRun {
  code: number;
  out: string;
  err: string;
}

/** `lead-ingress ARGS… --database FILE`; resolves when the process has exited. */
export async function cli(database: string, ...args: string[]): Promise<CliRun> {
  return run([...args, "--database", database]);
}

/** `lead-ingress ARGS…` exactly as given. */
export async function run(args: string[]): Promise<CliRun> {
  const child = Bun.spawn([...productCommand(), ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { code, out, err };
}

/** A fresh, migrated database file with no server on it. */
export function emptyDatabase(): { path: string; cleanup: () => void } {
  const temp = tempDatabasePath();
  openDatabase(temp.path).close();
  return temp;
}
