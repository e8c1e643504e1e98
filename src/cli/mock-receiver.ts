// `lead-ingress mock-receiver`: the mock vendor receiver as a process, for trying callbacks by hand
// and for the benchmark. Prints its URL, then one JSON line per callback; SIGINT/SIGTERM stop it.
import { takeFlag, UsageError } from "./args.ts";
import { CONTROL_PREFIX } from "../mock-receiver/behaviour.ts";
import { CHECK_PREFIX } from "../mock-receiver/checks.ts";
import { LoopbackError, startMockReceiver, type MockReceiver, type MockReceiverOptions } from "../mock-receiver/receiver.ts";
import type { RecordedCallback } from "../mock-receiver/recorder.ts";
import { SecretError } from "../mock-receiver/signature.ts";

export const MOCK_RECEIVER_HELP = `Usage:
  lead-ingress mock-receiver [--port 9090] [--host 127.0.0.1] [--secret whsec_...] [--check-secret whsec_...]
      A stand-in vendor that records callbacks and answers as told. --port 0 picks a free port;
      the host must be a loopback address. Control API: ${CONTROL_PREFIX}/callbacks, ${CONTROL_PREFIX}/behaviour, ${CONTROL_PREFIX}/secret, ${CONTROL_PREFIX}/trustedform.
      It also plays TrustedForm's certificate API v4 at /trustedform/<certificate id> (docs/certificates.md).
      A behaviour's path covers the paths under it (/dead covers /dead/x); the longest one wins.
      Also a check service: POSTs to ${CHECK_PREFIX}[/...] are answered per phone as set with
      ${CONTROL_PREFIX}/checks (docs/checks.md), signatures checked with --check-secret (else --secret).`;

export async function mockReceiverCommand(args: string[], print: (line: string) => void): Promise<number> {
  const rest = [...args];
  const port = parsePort(takeFlag(rest, "--port") ?? "9090");
  const host = takeFlag(rest, "--host") ?? "127.0.0.1";
  const secret = takeFlag(rest, "--secret");
  const checkSecret = takeFlag(rest, "--check-secret");
  if (rest.length > 0) throw new UsageError(`Unexpected argument(s): ${rest.join(" ")}\n${MOCK_RECEIVER_HELP}`);

  const receiver = start({ port, host, secret, checkSecret, onCallback: (callback) => print(logLine(callback)) });
  print(`Mock receiver listening on ${receiver.url.origin} (control API under ${receiver.url.origin}${CONTROL_PREFIX})`);

  return new Promise((resolve) => {
    const shutdown = () => {
      process.off("SIGINT", shutdown);
      process.off("SIGTERM", shutdown);
      receiver.stop().then(() => resolve(0));
    };
    process.on("SIGINT", shutdown);
    process.on("SIGTERM", shutdown);
  });
}

function start(options: MockReceiverOptions): MockReceiver {
  try {
    return startMockReceiver(options);
  } catch (error) {
    // Bad flags are usage errors (exit 2); a port in use and the like are not.
    if (error instanceof LoopbackError || error instanceof SecretError) throw new UsageError(error.message);
    throw error;
  }
}

function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new UsageError(`--port must be a number from 0 to 65535, got ${text}`);
  return port;
}

function logLine(callback: RecordedCallback): string {
  const { answer } = callback;
  return JSON.stringify({
    time: callback.receivedAt,
    event: "callback_received",
    method: callback.method,
    path: callback.path,
    attempt: callback.attempt,
    webhook_id: callback.headers["webhook-id"] ?? null,
    signature_valid: callback.signature?.valid ?? null,
    ...(callback.signature?.error ? { signature_error: callback.signature.error } : {}),
    answer: answer.action === "respond" ? answer.status : answer.action,
    ...(answer.action !== "hang" && answer.delayMs > 0 ? { delay_ms: answer.delayMs } : {}),
  });
}
