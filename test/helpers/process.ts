// Runs the service as a separate process, as an operator would: `bun src/main.ts`, or the compiled
// binary when LEAD_INGRESS_TEST_BINARY names one (CI runs the end-to-end suite both ways).
import type { Subprocess } from "bun";
import { join } from "node:path";

const ROOT = join(import.meta.dir, "../..");

/** The command that starts the product: the compiled binary under test, or the source. */
export function productCommand(): string[] {
  const binary = Bun.env.LEAD_INGRESS_TEST_BINARY;
  return binary ? [binary] : [process.execPath, join(ROOT, "src/main.ts")];
}

export interface ServerProcess {
  url: string;
  process: Subprocess<"ignore", "pipe", "pipe">;
  /** Every JSON log line the process printed so far. */
  logs: Record<string, unknown>[];
  stop(signal?: NodeJS.Signals): Promise<number>;
}

/** Starts `serve` on an ephemeral port and resolves once it logs where it listens (needs info logs). */
export async function spawnServer(args: string[], env: Record<string, string> = {}): Promise<ServerProcess> {
  const child = Bun.spawn([...productCommand(), "serve", "--host", "127.0.0.1", "--port", "0", ...args], {
    cwd: ROOT,
    env: { ...Bun.env, ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const logs: Record<string, unknown>[] = [];
  const listening = new Promise<string>((resolve, reject) => {
    readLines(child.stdout, (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      logs.push(entry);
      if (entry.event === "listening") resolve(String(entry.url));
    }).then(() => reject(new Error("server exited before listening")));
  });
  let timer: Timer | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("server did not start within 15 s")), 15_000)));
  const url = await Promise.race([listening, timeout])
    .catch(async (error) => {
      child.kill();
      throw new Error(`${error.message}\n${await new Response(child.stderr).text()}`);
    })
    .finally(() => clearTimeout(timer));
  return {
    url,
    process: child,
    logs,
    async stop(signal = "SIGTERM") {
      child.kill(signal);
      return child.exited;
    },
  };
}

async function readLines(stream: ReadableStream<Uint8Array>, onLine: (line: string) => void): Promise<void> {
  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of stream) {
    buffered += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line.startsWith("{")) onLine(line);
    }
  }
}
