// Runs a load generator in its own process (autocannon's load.mjs under Node, or the open-loop
// generator under Bun) and reads back its one JSON result line.
import type { Subprocess } from "bun";
import { basicAuth, invalidLead, PHONE_SLOT, workloadLeadTemplate } from "./bodies.ts";
import type { OpenLoopOptions, OpenLoopResult } from "./open-loop.ts";
import type { WorkloadReceivers } from "./receiver.ts";
import type { BenchServer } from "./server.ts";
import type { WorkloadOptions } from "./workload.mjs";

export interface LoadOptions {
  url: string;
  path: string;
  headers: Record<string, string>;
  connections: number;
  duration: number;
  warmup: number;
  body?: string;
  /** The realistic workload's bodies (workload.mjs). */
  workload?: WorkloadOptions;
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
const OPEN_LOOP_SCRIPT = new URL("./open-loop.ts", import.meta.url).pathname;

/** The running load process, so an interrupted benchmark can stop it too. */
let active: Subprocess | undefined;

export function killLoad(): void {
  active?.kill("SIGKILL");
}

/** Runs a load process and parses the JSON on the last line it prints. */
async function runLoadProcess<T>(command: string[], plannedSeconds: number): Promise<T> {
  const child = Bun.spawn(command, { stdout: "pipe", stderr: "inherit", stdin: "ignore" });
  active = child;
  // The load process has its own deadline; this one covers one that never starts or never exits.
  const timer = setTimeout(() => child.kill("SIGKILL"), (plannedSeconds + 60) * 1000);
  try {
    const [output, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
    if (code !== 0) throw new Error(`${command[1]} exited with code ${code}`);
    const line = output.trim().split("\n").at(-1) ?? "";
    return JSON.parse(line) as T;
  } finally {
    clearTimeout(timer);
    active = undefined;
  }
}

/** autocannon (closed loop, under Node): `connections` requests in flight at all times. */
export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return runLoadProcess(["node", LOAD_SCRIPT, JSON.stringify(options)], options.warmup + options.duration);
}

/** The open-loop generator (under Bun): a fixed arrival rate, latency from the intended send time. */
export function runOpenLoopLoad(options: OpenLoopOptions): Promise<OpenLoopResult> {
  return runLoadProcess([process.execPath, OPEN_LOOP_SCRIPT, JSON.stringify(options)], options.warmup + options.duration);
}

/**
 * What a workload bench has started: its server and the workload's receivers, stopped together
 * with the load, after each run or when the bench fails.
 */
/**
 * The full lifecycle's load (bench:steady, bench:p99): realistic postLeads at a fixed rate, their
 * callbacks pointed at the workload's receivers, a share of them failing (`shares`).
 */
export function runLifecycleLoad(options: {
  url: string;
  rate: number;
  connections: number;
  duration: number;
  warmup: number;
  phoneStart: number;
  receivers: WorkloadReceivers;
  shares: WorkloadOptions["shares"];
}): Promise<OpenLoopResult> {
  const { receivers, phoneStart, shares, ...timing } = options;
  return runOpenLoopLoad({
    ...timing,
    path: "/v1/postLead",
    headers: { authorization: basicAuth("bench", "bench-password") },
    workload: {
      template: workloadLeadTemplate,
      slot: PHONE_SLOT,
      invalidBody: invalidLead,
      phoneStart,
      callbackBase: receivers.healthy.url,
      failingBases: receivers.failingBases,
      shares,
      seed: phoneStart,
    },
  });
}

export class BenchProcesses {
  server: BenchServer | undefined;
  receivers: WorkloadReceivers | undefined;

  async stop(): Promise<void> {
    killLoad();
    await this.server?.stop();
    await this.receivers?.stop();
    this.server = this.receivers = undefined;
  }
}
