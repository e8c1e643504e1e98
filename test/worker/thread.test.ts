// The worker on its own thread (src/worker/thread-host.ts, thread.ts): a thread that dies is logged
// and started again, never left silently not deciding; the thread's metric calls reach the main
// registry; and the real thread decides and calls back over its own connection, its counts and
// metrics on the main thread's /metrics, and stops with the server.
import { expect, test } from "bun:test";
import { defaultConfig } from "../../src/config/index.ts";
import { createLogger } from "../../src/log/index.ts";
import { applyMetricCalls, forwardedMetrics, type MetricCall } from "../../src/metrics/forwarded.ts";
import { createMetrics } from "../../src/metrics/index.ts";
import { NO_TALLY } from "../../src/stats/tally.ts";
import { runsInThread, startWorkerThread } from "../../src/worker/thread-host.ts";
import { foregroundCounter } from "../../src/worker/thread-messages.ts";
import { startMockReceiver } from "../../src/mock-receiver/index.ts";
import { validLead } from "../helpers/leads.ts";
import { openDatabase } from "../../src/db/client.ts";
import { post, startTestServer, tempDatabasePath } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";
import { startPgCluster } from "../helpers/pg-cluster.ts";
import { op } from "../../src/db/script.ts";

function capturingLogger() {
  const lines: Record<string, unknown>[] = [];
  return { lines, log: createLogger("info", (line) => lines.push(JSON.parse(line))) };
}

test("a thread that dies is logged and started again, and its log lines reach the main logger", async () => {
  const { lines, log } = capturingLogger();
  const config = { ...defaultConfig(), port: 4321 };
  const worker = startWorkerThread({
    config,
    log,
    metrics: createMetrics(),
    tally: NO_TALLY,
    threadUrl: new URL("./fixtures/crashing-thread.ts", import.meta.url),
    foreground: foregroundCounter().shared,
  });
  try {
    await waitUntil(() => lines.filter((line) => line.event === "worker_thread_started").length >= 2, 10_000);
    const failed = lines.find((line) => line.event === "worker_thread_failed");
    expect(failed?.level).toBe("error");
    expect(String(failed?.error)).toContain("the fixture's uncaught error");
    expect(String(failed?.action)).toContain("restarting the thread in 1000 ms");
    // The config crossed once, whole: the fixture logs a value from it.
    expect(lines.find((line) => line.event === "fixture_ran")?.port).toBe(4321);
  } finally {
    await worker.stop(1_000);
  }
});

test("metric calls recorded on the thread are applied to the main registry", () => {
  const calls: MetricCall[] = [];
  const forwarded = forwardedMetrics((call) => calls.push(call));
  forwarded.finalResults.inc({ status: "accepted" });
  forwarded.finalResults.inc({ status: "accepted" }, 2);
  forwarded.callbackAttemptDuration.observe({ result: "delivered" }, 0.2);
  const main = createMetrics();
  applyMetricCalls(main, structuredClone(calls));
  expect(main.finalResults.render()).toContain('lead_ingress_final_results_total{status="accepted"} 3');
  expect(main.callbackAttemptDuration.render()).toContain('lead_ingress_callback_attempt_duration_seconds_count{result="delivered"} 1');
});

test("the thread runs only where it can open a connection of its own, and only when asked", () => {
  const config = { ...defaultConfig(), workerThread: true, databasePath: "/tmp/x.db" };
  expect(runsInThread(config, false)).toBe(true);
  expect(runsInThread(config, true)).toBe(false);
  expect(runsInThread({ ...config, databasePath: ":memory:" }, false)).toBe(false);
  expect(runsInThread({ ...config, databasePath: "postgres://u@h/db" }, false)).toBe(true);
  expect(runsInThread({ ...config, workerThread: false }, false)).toBe(false);
});

test("the real thread decides and calls back on its own connection; its counts reach the console's tally; it stops with the server", async () => {
  const file = tempDatabasePath();
  const server = await startTestServer({
    databasePath: file.path,
    workerThread: true,
    holdPeriodMs: 50,
    workerPollIntervalMs: 20,
    allowPrivateCallbacks: true,
  });
  const receiver = startMockReceiver();
  try {
    const lead = validLead({ call_back_url: `${receiver.url.origin}/thread-cb` });
    expect((await post(`${server.url}/v1/postLead`, lead, { authorization: server.auth })).status).toBe(200);
    await receiver.waitFor(1, { path: "/thread-cb" });
    const started = Date.now();
    await server.stop();
    expect(Date.now() - started).toBeLessThan(server.config.shutdownTimeoutMs);
    // The tally's last flush (at shutdown) wrote what the thread counted.
    const db = openDatabase(file.path);
    const kinds = db.sqlite.query("SELECT DISTINCT kind FROM outcome_counts").all() as { kind: string }[];
    db.close();
    expect(kinds.map((row) => row.kind)).toEqual(expect.arrayContaining(["decided_accepted", "delivered"]));
  } finally {
    await receiver.stop();
    file.cleanup();
  }
});

test("on PostgreSQL the real thread decides and calls back on a pool of its own (no write turns), and stops with the server", async () => {
  const cluster = await startPgCluster();
  const receiver = startMockReceiver();
  try {
    const server = await startTestServer({
      databasePath: (await cluster.createDatabase()) as `postgres://${string}`,
      workerThread: true,
      holdPeriodMs: 50,
      workerPollIntervalMs: 20,
      allowPrivateCallbacks: true,
    });
    try {
      const lead = validLead({ call_back_url: `${receiver.url.origin}/thread-pg` });
      const answer = await post(`${server.url}/v1/postLead`, lead, { authorization: server.auth });
      expect(answer.status).toBe(200);
      await receiver.waitFor(1, { path: "/thread-pg" });
      const leadId = answer.body.lead_id as string;
      await waitUntil(async () => (await server.store.read((t) => op(t.leads.statusOf(leadId)))) === "accepted", 10_000);
    } finally {
      const started = Date.now();
      await server.stop();
      expect(Date.now() - started).toBeLessThan(server.config.shutdownTimeoutMs);
    }
  } finally {
    await receiver.stop();
    await cluster.stop();
  }
}, 60_000);
