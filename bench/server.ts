// Starts and stops the real service as a separate process, the way an operator would run it.
import type { Subprocess } from "bun";
import { closeSync, openSync } from "node:fs";
import { resolve } from "node:path";

export interface ServerOptions {
  /** A compiled binary to run instead of `bun src/main.ts`. */
  binary: string | undefined;
  databasePath: string;
  logPath: string;
  repoDir: string;
  /** Flags after the bench's own (a later flag wins), e.g. ["--worker", "false"]. */
  flags?: string[];
  /** Bun options before the script, e.g. ["--cpu-prof-md"] (ignored with a binary). */
  bunFlags?: string[];
  /**
   * An acceptance policy document to import into the database once the server is ready
   * (`rules import`), waiting until the server has it in force. Default: BENCH_POLICY, else none.
   */
  policyPath?: string;
}

export interface BenchServer {
  url: string;
  pid: number;
  stop(): Promise<void>;
}

/** A port nobody listens on right now: bind port 0 on loopback, read the port, release it. */
export function freePort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const port = probe.port;
  probe.stop(true);
  return port;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 20_000;

export async function startServer(options: ServerOptions): Promise<BenchServer> {
  const port = freePort();
  const flags = [
    "serve",
    "--port",
    String(port),
    "--host",
    "127.0.0.1",
    "--database",
    options.databasePath,
    "--bootstrap-vendor",
    "bench:bench-password",
    "--rate-limit",
    "0",
    "--bench-noop-route",
    "--hold-period",
    "1h",
    "--log-level",
    "info",
    ...(options.flags ?? []),
  ];
  const cli = options.binary ? [options.binary] : [process.execPath, "src/main.ts"];
  const command = options.binary ? [options.binary, ...flags] : [process.execPath, ...(options.bunFlags ?? []), "src/main.ts", ...flags];
  // One log file across restarts (appended), so a failed start can be diagnosed afterwards.
  const log = openSync(options.logPath, "a");
  const child = Bun.spawn(command, { cwd: options.repoDir, stdout: log, stderr: log, stdin: "ignore" });
  closeSync(log); // the child holds its own copy
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${url}/readyz`, child);
    const policyPath = options.policyPath ?? process.env.BENCH_POLICY;
    // Relative to where the bench was started, as the operator typed it.
    if (policyPath) await importPolicy(cli, options, resolve(policyPath), url);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return { url, pid: child.pid, stop: () => stopChild(child) };
}

const POLICY_TIMEOUT_MS = 10_000;
const POLICY_RELOAD_MS = 2_500;

/**
 * Imports the policy after the server has migrated the database, then waits until the server has
 * loaded it (it reads the policy's version every second): its caps' gauges appear in /metrics.
 */
async function importPolicy(cli: string[], options: ServerOptions, policyPath: string, url: string): Promise<void> {
  const run = Bun.spawn([...cli, "rules", "import", policyPath, "--database", options.databasePath], {
    cwd: options.repoDir,
    stdout: "pipe",
    stderr: "pipe",
    stdin: "ignore",
  });
  const [out, err, code] = await Promise.all([new Response(run.stdout).text(), new Response(run.stderr).text(), run.exited]);
  if (code !== 0) throw new Error(`rules import ${policyPath} exited with code ${code}:\n${out}${err}`);
  // Without an enabled cap nothing in /metrics tells; the loader reads the version every second.
  const document = (await Bun.file(policyPath).json()) as { caps?: { enabled?: boolean }[] };
  if (!document.caps?.some((cap) => cap.enabled !== false)) return void (await Bun.sleep(POLICY_RELOAD_MS));
  const deadline = Date.now() + POLICY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    const metrics = await fetch(`${url}/metrics`).then((response) => response.text());
    if (metrics.includes("lead_ingress_policy_cap_max{")) return;
    await Bun.sleep(200);
  }
  throw new Error(`${url}: policy ${policyPath} not in force after ${POLICY_TIMEOUT_MS} ms`);
}

/** Polls GET `readyUrl` until it answers 200; fails if the process exits or time runs out. */
export async function waitUntilReady(readyUrl: string, child: Subprocess): Promise<void> {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${readyUrl}: process exited with code ${child.exitCode} before it was ready`);
    try {
      const response = await fetch(readyUrl, { signal: AbortSignal.timeout(1_000) });
      if (response.status === 200) return;
    } catch {
      // Not listening yet.
    }
    await Bun.sleep(100);
  }
  throw new Error(`${readyUrl}: not ready after ${READY_TIMEOUT_MS} ms`);
}

/** SIGTERM (the service's clean shutdown), then SIGKILL if it does not exit in time. */
export async function stopChild(child: Subprocess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const exited = await Promise.race([child.exited.then(() => true), Bun.sleep(STOP_TIMEOUT_MS).then(() => false)]);
  if (!exited) {
    console.error(`process ${child.pid} did not stop within ${STOP_TIMEOUT_MS} ms of SIGTERM; killing it`);
    child.kill("SIGKILL");
    await child.exited;
  }
}
