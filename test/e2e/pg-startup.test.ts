// An unlucky start on PostgreSQL (issue 26): the service started while the server refuses
// connections ("too many clients already") or is not there waits for it with its listener up
// (healthz 200, readyz and the API 503) instead of exiting, and SIGTERM ends the wait; a running
// service whose pool is starved answers 503 within the wait's bound and /readyz within a second.
// The service runs as its own process, as an operator starts it (the binary with LEAD_INGRESS_TEST_BINARY).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SQL, type Subprocess } from "bun";
import { basicAuthorization } from "../../src/auth/basic.ts";
import { DATABASE_WAIT_MS } from "../../src/db/pg/client.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { startPgCluster, type PgCluster } from "../helpers/pg-cluster.ts";
import { productCommand } from "../helpers/process.ts";
import { waitUntil } from "../helpers/wait.ts";

const VENDOR = { name: "startup-vendor", password: "startup-password-1" };
const auth = { authorization: basicAuthorization(VENDOR.name, VENDOR.password) };
const UNAVAILABLE = { success_bit: false, message: [{ error: "Service temporarily unavailable" }] };

let cluster: PgCluster;

// Few connection slots, all of them usable by the tests' superuser, so the tests can take them all.
beforeAll(async () => {
  cluster = await startPgCluster({ settings: { max_connections: "12", superuser_reserved_connections: "0" } });
});
afterAll(() => cluster?.stop());

/** Takes every free connection slot of the cluster (each a client of one connection); `release()` gives them back. */
async function takeEverySlot(): Promise<{ count: number; release(): Promise<void> }> {
  const held: SQL[] = [];
  for (;;) {
    const client = new SQL({ url: cluster.url(), max: 1, connectionTimeout: 2 });
    try {
      await client`select 1`;
      held.push(client);
    } catch (error) {
      await client.close();
      expect((error as { errno?: string }).errno).toBe("53300"); // too many clients already
      return { count: held.length, release: async () => void (await Promise.all(held.map((c) => c.close()))) };
    }
  }
}

interface Service {
  process: Subprocess<"ignore", "pipe", "pipe">;
  logs: Record<string, unknown>[];
  stderr(): string;
  /** The first log line of `event`, once it is logged. */
  event(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
}

function startService(database: string, ...flags: string[]): Service {
  const child = Bun.spawn(
    [
      ...productCommand(),
      "serve",
      "--host",
      "127.0.0.1",
      "--port",
      "0",
      "--database",
      database,
      "--bootstrap-vendor",
      `${VENDOR.name}:${VENDOR.password}`,
      "--shutdown-drain",
      "0ms",
      ...flags,
    ],
    { stdin: "ignore", stdout: "pipe", stderr: "pipe" },
  );
  const logs: Record<string, unknown>[] = [];
  let stderr = "";
  void (async () => {
    let buffered = "";
    for await (const chunk of child.stdout) {
      buffered += new TextDecoder().decode(chunk);
      const lines = buffered.split("\n");
      buffered = lines.pop()!;
      for (const line of lines) if (line.startsWith("{")) logs.push(JSON.parse(line));
    }
  })();
  void (async () => {
    for await (const chunk of child.stderr) stderr += new TextDecoder().decode(chunk);
  })();
  return {
    process: child,
    logs,
    stderr: () => stderr,
    async event(event, timeoutMs = 15_000) {
      await waitUntil(() => logs.some((line) => line.event === event) || child.exitCode !== null, timeoutMs, 20);
      const found = logs.find((line) => line.event === event);
      if (!found) throw new Error(`the service exited (${child.exitCode}) before logging ${event}: ${stderr}`);
      return found;
    },
  };
}

async function timedFetch(url: string, init?: RequestInit): Promise<{ status: number; body: unknown; ms: number }> {
  const since = performance.now();
  const response = await fetch(url, init);
  const body = await response.json();
  return { status: response.status, body, ms: performance.now() - since };
}

const postLead = (base: string, phone = uniquePhone()) =>
  timedFetch(`${base}/v1/postLead`, {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify(validLead({ phone_number: phone })),
  });

describe("started while PostgreSQL has no free connection slot", () => {
  test("the service waits for it: healthz 200, readyz and /v1 503 meanwhile, each failure logged once; then it migrates, creates the vendor and serves", async () => {
    const database = await cluster.createDatabase();
    const slots = await takeEverySlot();
    let released = false;
    const service = startService(database, "--database-pool-size", "2");
    try {
      const unavailable = await service.event("database_unavailable");
      expect(unavailable).toMatchObject({ level: "error", error: expect.stringContaining("too many clients already") });
      const base = String(unavailable.url);

      expect(await timedFetch(`${base}/healthz`)).toMatchObject({ status: 200, body: { status: "ok" } });
      const readiness = await timedFetch(`${base}/readyz`);
      expect(readiness).toMatchObject({ status: 503, body: { status: "not ready" } });
      expect(readiness.ms).toBeLessThan(1_000);
      expect(await postLead(base)).toMatchObject({ status: 503, body: UNAVAILABLE });
      expect(await timedFetch(`${base}/v1/leads/${crypto.randomUUID()}`, { headers: auth })).toMatchObject({ status: 503, body: UNAVAILABLE });

      // Several attempts later (250 ms, 500 ms, 1 s apart), the same failure is still one line.
      await Bun.sleep(2_500);
      expect(service.process.exitCode).toBeNull();
      expect(service.logs.filter((line) => line.event === "database_unavailable")).toHaveLength(1);
      expect(service.logs.some((line) => line.event === "listening")).toBe(false);

      await slots.release();
      released = true;
      const connected = await service.event("database_connected");
      expect(connected.attempts).toBeGreaterThan(1);
      await service.event("listening");
      expect((await timedFetch(`${base}/readyz`)).status).toBe(200);
      // Migrated and the bootstrap vendor created once connected: a lead is accepted.
      const accepted = await postLead(base);
      expect(accepted.status).toBe(200);
      // The bootstrap vendor's secret, shown once at its creation, on stderr and never in the logs.
      const secret = /signing secret, shown only now: (\S+)/.exec(service.stderr())?.[1];
      expect(secret).toStartWith("whsec_");
      expect(JSON.stringify(service.logs)).not.toContain(secret!);
    } finally {
      if (!released) await slots.release();
      service.process.kill("SIGTERM");
      await service.process.exited;
    }
  }, 60_000);
});

describe("started while PostgreSQL is not there", () => {
  test("SIGTERM while it waits: the service exits 0 at once; its log names the server, never the URL's password", async () => {
    const away = new URL(cluster.url("nowhere"));
    const hole = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
    away.port = String(hole.port);
    hole.stop(true); // nothing listens there now
    away.password = "s3cret-in-url";
    const service = startService(away.toString());
    try {
      const unavailable = await service.event("database_unavailable");
      expect(unavailable.error).toBe(`could not open PostgreSQL at 127.0.0.1:${away.port}/nowhere: Failed to connect`);
      expect((await timedFetch(`${unavailable.url}/healthz`)).status).toBe(200);
      const since = performance.now();
      service.process.kill("SIGTERM");
      expect(await service.process.exited).toBe(0);
      expect(performance.now() - since).toBeLessThan(2_000);
      expect(service.logs.at(-1)).toMatchObject({ event: "stopped", signal: "SIGTERM" });
      expect(JSON.stringify(service.logs) + service.stderr()).not.toContain("s3cret-in-url");
    } finally {
      service.process.kill("SIGKILL");
    }
  }, 30_000);
});

describe("a running service whose pool is starved", () => {
  test(`postLead and prePing get 503 within the wait's bound (${DATABASE_WAIT_MS} ms), /readyz 503 within a second, and a lead answered 503 is not stored`, async () => {
    const database = await cluster.createDatabase();
    const service = startService(database, "--database-pool-size", "2", "--worker", "false");
    // The tables postLead writes and prePing reads, locked by a transaction of the test's own; then
    // every other connection slot taken, so the pool can neither use its connections nor open more.
    const locker = new SQL({ url: database, max: 1 });
    let unlock: () => void = () => {};
    let slots: Awaited<ReturnType<typeof takeEverySlot>> | undefined;
    try {
      const base = String((await service.event("listening")).url);
      expect((await postLead(base)).status).toBe(200); // the pool has its connection(s)
      const locked = new Promise<void>((resolve) => {
        void locker.begin(async (tx) => {
          await tx`lock table leads, suppressions in access exclusive mode`;
          resolve();
          await new Promise<void>((release) => (unlock = release));
        });
      });
      await locked;
      slots = await takeEverySlot();

      // A batch of leads and one of prePings hold both connections; what comes next waits for one.
      const phones = [uniquePhone(), uniquePhone(), uniquePhone(), uniquePhone()];
      const prePing = (phone: string) =>
        timedFetch(`${base}/v1/prePing`, {
          method: "POST",
          headers: { ...auth, "content-type": "application/json" },
          body: JSON.stringify({ phone_number: phone }),
        });
      const starved = Promise.all([...phones.map((phone) => postLead(base, phone)), prePing(uniquePhone()), prePing(uniquePhone())]);
      await Bun.sleep(200);
      const readiness = await timedFetch(`${base}/readyz`);
      expect(readiness.status).toBe(503);
      expect(readiness.ms).toBeLessThan(1_000);
      for (const answer of await starved) {
        // In each route's envelope: success_bit for postLead, can_post_phone_bit for prePing.
        expect(answer).toMatchObject({ status: 503, body: { message: UNAVAILABLE.message } });
        expect(answer.ms).toBeLessThan(DATABASE_WAIT_MS + 1_500);
      }

      unlock();
      await slots.release();
      slots = undefined;
      await waitUntil(async () => (await timedFetch(`${base}/readyz`)).status === 200, 10_000, 100);
      expect((await postLead(base)).status).toBe(200);
      // What was answered 503 was cancelled, not left to run later.
      const stored = await locker.unsafe("select count(*)::int as n from leads where phone_e164 = any($1)", [phones.map((p) => `+1${p.replace(/\D/g, "")}`)]);
      expect(stored[0].n).toBe(0);
    } finally {
      unlock();
      await slots?.release();
      await locker.close();
      service.process.kill("SIGTERM");
      await service.process.exited;
    }
  }, 60_000);
});
