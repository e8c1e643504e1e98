// Runs the mock vendor receiver (`bun src/main.ts mock-receiver`) as its own process for the
// callbacks benchmark, and reads back its log: one JSON line per callback received.
import { closeSync, openSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, stopChild, waitUntilReady } from "./server.ts";
import { RECEIVER_BEHAVIOURS } from "./workload.mjs";

export interface BenchReceiver {
  url: string;
  pid: number;
  /** Forgets the callbacks it keeps in memory (its log keeps them all), so memory stays bounded. */
  clear(): Promise<void>;
  stop(): Promise<void>;
}

export interface ReceiverLog {
  received: number;
  distinctIds: number;
  /** Callbacks whose signature the receiver checked (all of them when it had the secret), and the valid ones. */
  signaturesChecked: number;
  signaturesValid: number;
  /** Answers other than 200 (there should be none: the receiver answers 200 at once). */
  non200: number;
}

/** Starts the receiver on a free loopback port; with `secret` it verifies every signature. */
export async function startReceiver(options: { repoDir: string; logPath: string; secret?: string }): Promise<BenchReceiver> {
  const port = freePort();
  const secretFlags = options.secret ? ["--secret", options.secret] : [];
  const log = openSync(options.logPath, "w");
  const child = Bun.spawn([process.execPath, "src/main.ts", "mock-receiver", "--port", String(port), "--host", "127.0.0.1", ...secretFlags], {
    cwd: options.repoDir,
    stdout: log,
    stderr: log,
    stdin: "ignore",
  });
  closeSync(log);
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitUntilReady(`${url}/_mock/behaviour`, child);
  } catch (error) {
    await stopChild(child);
    throw error;
  }
  return {
    url,
    pid: child.pid,
    async clear() {
      await fetch(`${url}/_mock/callbacks`, { method: "DELETE", signal: AbortSignal.timeout(5_000) });
    },
    stop: () => stopChild(child),
  };
}

/** Makes the receiver at `url` answer each callback path as the workload's names say (workload.mjs). */
export async function playWorkloadBehaviours(url: string): Promise<void> {
  for (const behaviour of RECEIVER_BEHAVIOURS) {
    const response = await fetch(`${url}/_mock/behaviour`, { method: "PUT", body: JSON.stringify(behaviour) });
    if (!response.ok) throw new Error(`mock receiver refused ${JSON.stringify(behaviour)}: ${await response.text()}`);
  }
}

/** Counts the callback_received lines of a stopped receiver's log. */
export function readReceiverLog(logPath: string): ReceiverLog {
  const ids = new Set<string>();
  const out: ReceiverLog = { received: 0, distinctIds: 0, signaturesChecked: 0, signaturesValid: 0, non200: 0 };
  for (const line of readFileSync(logPath, "utf8").split("\n")) {
    if (!line.startsWith("{")) continue;
    const entry = JSON.parse(line) as { event?: string; webhook_id?: string | null; signature_valid?: boolean | null; answer?: unknown };
    if (entry.event !== "callback_received") continue;
    out.received++;
    if (entry.webhook_id) ids.add(entry.webhook_id);
    if (entry.signature_valid !== null && entry.signature_valid !== undefined) out.signaturesChecked++;
    if (entry.signature_valid === true) out.signaturesValid++;
    if (entry.answer !== 200) out.non200++;
  }
  out.distinctIds = ids.size;
  return out;
}

export interface WorkloadReceivers {
  /** The healthy vendors' server (and the paths that fail once); its log is `receiver.log`. */
  healthy: BenchReceiver;
  /** The down and hanging vendors' servers, for the workload's `failingBases`. */
  failingBases: { dead: string; hang: string };
  stop(): Promise<void>;
}

/**
 * The workload's receivers: the healthy one, and the down and the hanging vendor each on a server
 * (an origin) of its own, as vendors are; the service guards each origin (callbacks/endpoints.ts),
 * so on one receiver a hanging share would cap the healthy callbacks with it.
 */
export async function startWorkloadReceivers(options: { repoDir: string; dir: string; secret?: string }): Promise<WorkloadReceivers> {
  const start = async (name: string) => {
    const receiver = await startReceiver({ repoDir: options.repoDir, logPath: join(options.dir, `${name}.log`), secret: options.secret });
    await playWorkloadBehaviours(receiver.url);
    return receiver;
  };
  const [healthy, down, hanging] = await Promise.all([start("receiver"), start("receiver-down"), start("receiver-hanging")]);
  return {
    healthy,
    failingBases: { dead: down.url, hang: hanging.url },
    stop: async () => {
      await Promise.all([healthy.stop(), down.stop(), hanging.stop()]);
    },
  };
}
