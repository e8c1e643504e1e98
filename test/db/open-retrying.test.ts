// Start-up's retries of the database (backend/open-retrying.ts): what is retried and what stops
// the start, each distinct failure logged once, the backoff's bounds, and SIGTERM ending the wait.
import { expect, test } from "bun:test";
import type { ServiceBackend } from "../../src/backend/index.ts";
import { openRetrying, StartCancelled, startupRetryDelayMs } from "../../src/backend/open-retrying.ts";
import { createLogger } from "../../src/log/index.ts";

const tooManyClients = () => Object.assign(new Error("could not open PostgreSQL at db:5432/leads: sorry, too many clients already"), { errno: "53300" });
const refused = () => Object.assign(new Error("could not open PostgreSQL at db:5432/leads: Failed to connect"), { code: "ERR_POSTGRES_CONNECTION_REFUSED" });
const backend = { close: async () => {} } as unknown as ServiceBackend;

function recordingLog() {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger("info", (line) => lines.push(JSON.parse(line))) };
}

test("the wait doubles from 250 ms to at most 10 s, ±20 %", () => {
  expect([1, 2, 3, 6, 7, 20].map((attempt) => startupRetryDelayMs(attempt, () => 0.5))).toEqual([250, 500, 1_000, 8_000, 10_000, 10_000]);
  expect(startupRetryDelayMs(1, () => 0)).toBe(200);
  expect(startupRetryDelayMs(30, () => 1)).toBeCloseTo(12_000);
});

test("unavailable failures are retried, each distinct one logged once; the connection is logged with its attempts", async () => {
  const { lines, log } = recordingLog();
  const failures = [tooManyClients(), tooManyClients(), refused(), tooManyClients()];
  const opened = await openRetrying(
    async () => {
      const failure = failures.shift();
      if (failure) throw failure;
      return backend;
    },
    { log, listening: "http://127.0.0.1:1" },
  );
  expect(opened).toBe(backend);
  const unavailable = lines.filter((line) => line.event === "database_unavailable");
  expect(unavailable.map((line) => [line.attempt, line.error])).toEqual([
    [1, tooManyClients().message],
    [3, refused().message],
  ]);
  expect(unavailable[0]).toMatchObject({ level: "error", url: "http://127.0.0.1:1" });
  expect(lines.find((line) => line.event === "database_connected")).toMatchObject({ attempts: 5 });
}, 15_000);

test("a failure waiting will not fix (a wrong password, no such database) stops the start at once", async () => {
  const { log } = recordingLog();
  const wrongPassword = Object.assign(new Error('password authentication failed for user "app"'), { errno: "28P01" });
  let attempts = 0;
  const opening = openRetrying(
    async () => {
      attempts++;
      throw wrongPassword;
    },
    { log, listening: "http://127.0.0.1:1" },
  );
  await expect(opening).rejects.toBe(wrongPassword);
  expect(attempts).toBe(1);
});

test("aborted while waiting (SIGTERM): StartCancelled at once, and a backend that opens late is closed", async () => {
  const { log } = recordingLog();
  const abort = new AbortController();
  let closed = false;
  let finishOpening: (backend: ServiceBackend) => void = () => {};
  const opening = openRetrying(() => new Promise<ServiceBackend>((resolve) => (finishOpening = resolve)), {
    log,
    listening: "http://127.0.0.1:1",
    signal: abort.signal,
  });
  abort.abort("SIGTERM");
  await expect(opening).rejects.toBeInstanceOf(StartCancelled);
  finishOpening({ close: async () => void (closed = true) } as unknown as ServiceBackend);
  await Bun.sleep(10);
  expect(closed).toBe(true);
});
