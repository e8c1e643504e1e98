// Crash safety (issue 3): the server is killed with SIGKILL in the middle of delivering callbacks;
// restarted on the same database, it brings every lead to a final state and every callback
// arrives at least once, duplicates carrying the same webhook-id. Every decision and attempt the
// database recorded has its log line in one of the two runs (they are written before the commit).
// Both with the worker on intake's thread and on its own (--worker-thread: a second connection that
// takes turns with intake's at the write lock, db/write-turns.ts).
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { startMockReceiver } from "../../src/mock-receiver/index.ts";
import { validLead } from "../helpers/leads.ts";
import { spawnServer } from "../helpers/process.ts";
import { basicAuth, post, tempDatabasePath, VENDOR } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const LEADS = 500;

const PLACEMENTS = [
  ["on intake's thread", []],
  ["on its own thread", ["--worker-thread", "true"]],
] as const;

test.each(PLACEMENTS)(
  "the worker %s: kill -9 mid-delivery, restart: all 500 leads decided, every callback delivered at least once",
  async (_, placement) => {
    const temp = tempDatabasePath();
    const receiver = startMockReceiver();
    // A slow receiver keeps deliveries in flight, and all 500 take several seconds even when posting
    // them was slow, so the kill comes mid-delivery.
    // 150 ms: 500 callbacks, 16 at a time, take about 5 s (the kill comes after the first 50).
    receiver.setBehaviour({ delayMs: 150 });
    const args = [
      "--database",
      temp.path,
      "--bootstrap-vendor",
      `${VENDOR.name}:${VENDOR.password}`,
      "--hold-period",
      "100ms",
      "--worker-poll-interval",
      "20ms",
      "--callback-timeout",
      "2s",
      "--callback-concurrency",
      "16",
      "--callback-retry-schedule",
      "100ms,100ms,100ms,100ms,100ms,100ms,100ms",
      "--allow-private-callbacks",
      "--rate-limit",
      "0",
      ...placement,
    ];
    const auth = { authorization: basicAuth(VENDOR.name, VENDOR.password) };
    let server = await spawnServer(args);
    try {
      const leadIds: string[] = [];
      for (let batch = 0; batch < LEADS / 25; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 25 }, (_, i) =>
            post(`${server.url}/v1/postLead`, validLead({ call_back_url: `${receiver.url.origin}/crash/${batch * 25 + i}` }), auth),
          ),
        );
        for (const answer of answers) {
          expect(answer.status).toBe(200);
          leadIds.push(answer.body.lead_id);
        }
      }
      await waitUntil(() => receiver.received().length >= 50, 20_000);
      expect(await server.stop("SIGKILL")).not.toBe(0);
      const killedRunLogs = server.logs;
      const deliveredBeforeCrash = receiver.received().length;
      expect(deliveredBeforeCrash).toBeLessThan(LEADS); // the crash really came mid-delivery

      server = await spawnServer(args);
      const db = new Database(temp.path, { readonly: true });
      try {
        const count = (sql: string) => (db.query(sql).get() as { n: number }).n;
        await waitUntil(() => count("SELECT count(*) AS n FROM callbacks WHERE status = 'delivered'") === LEADS, 45_000, 100);
        expect(count("SELECT count(*) AS n FROM leads WHERE status = 'pending'")).toBe(0);
        expect(count("SELECT count(*) AS n FROM leads")).toBe(LEADS);
        const ids = db.query("SELECT id FROM callbacks").all() as { id: string }[];
        const receivedIds = new Set(receiver.received().map((r) => r.headers["webhook-id"]));
        expect(ids.filter((row) => !receivedIds.has(row.id))).toEqual([]);
        expect(receivedIds.size).toBe(LEADS);

        // The restarted run's lines are in the pipe before its commits, but this process may not have
        // read them yet: wait for them (bounded) before comparing.
        const lines = (event: string) => [...killedRunLogs, ...server.logs].filter((line) => line.event === event);
        const undecidedInLog = () => {
          const logged = new Set(lines("final_result").map((line) => line.lead_id));
          return leadIds.filter((id) => !logged.has(id));
        };
        const attempts = (db.query("SELECT callback_id || '#' || attempt_no AS attempt FROM callback_attempts").all() as { attempt: string }[]).map(
          (row) => row.attempt,
        );
        const attemptsNotInLog = () => {
          const logged = new Set(lines("callback_attempt").map((line) => `${line.callback_id}#${line.attempt}`));
          return attempts.filter((attempt) => !logged.has(attempt));
        };
        await waitUntil(() => undecidedInLog().length === 0 && attemptsNotInLog().length === 0, 15_000).catch(() => {});
        expect(undecidedInLog()).toEqual([]);
        expect(attemptsNotInLog()).toEqual([]);
      } finally {
        db.close();
      }
    } finally {
      await server.stop("SIGKILL");
      await receiver.stop();
      temp.cleanup();
    }
  },
  90_000,
);
