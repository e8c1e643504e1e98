// Runs load.mjs under Node in its own process and reads back its one JSON result line.
import type { Subprocess } from "bun";

export interface LoadOptions {
  url: string;
  path: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
  warmup: number;
  body?: string;
  /** With template: a body per request, PHONE_SLOT replaced by phone phoneStart + n. */
  template?: string;
  slot?: string;
  phoneStart?: number;
  phoneCount?: number;
}

export interface LoadResult {
  requestsPerSec: number;
  p50Ms: number;
  p99Ms: number;
  total: number;
  non2xx: number;
  statusCodes: Record<string, number>;
  errors: number;
  timeouts: number;
  durationSec: number;
  phonesUsed: number;
  phonesUsedMeasured: number;
  /** Epoch ms when the measured run started and ended (after the warm-up). */
  measuredFrom: number;
  measuredTo: number;
}

const LOAD_SCRIPT = new URL("./load.mjs", import.meta.url).pathname;

/** The running load process, so an interrupted benchmark can stop it too. */
let active: Subprocess | undefined;

export function killLoad(): void {
  active?.kill("SIGKILL");
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const child = Bun.spawn(["node", LOAD_SCRIPT, JSON.stringify(options)], { stdout: "pipe", stderr: "inherit", stdin: "ignore" });
  active = child;
  // load.mjs has its own deadline; this one covers a Node that never starts or never exits.
  const limitMs = (options.warmup + options.duration + 60) * 1000;
  const timer = setTimeout(() => child.kill("SIGKILL"), limitMs);
  try {
    const [output, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    if (code !== 0) throw new Error(`load.mjs exited with code ${code}`);
    const line = output.trim().split("\n").at(-1) ?? "";
    return JSON.parse(line) as LoadResult;
  } finally {
    clearTimeout(timer);
    active = undefined;
  }
}
