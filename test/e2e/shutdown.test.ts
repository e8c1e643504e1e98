// SIGTERM / SIGINT: stop taking requests, finish in-flight deliveries within the bound, close the
// database cleanly (docs/contract.md §9).
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import { startMockReceiver } from "../../src/mock-receiver/index.ts";
import { postLead } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { spawnServer } from "../helpers/process.ts";
import { mountSmallDisk } from "../helpers/small-disk.ts";
import { basicAuth, post, tempDatabasePath, VENDOR } from "../helpers/server.ts";
import { defaultConfig } from "../../src/config/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createLogger } from "../../src/log/index.ts";
import { startServer } from "../../src/server.ts";
import { waitUntil } from "../helpers/wait.ts";

/** A server that decides and calls back at once (to the test's receiver on loopback). */
const spawnDeliveringServer = (database: string, extra: string[] = []) =>
  spawnServer([
    "--database",
    database,
    "--bootstrap-vendor",
    `${VENDOR.name}:${VENDOR.password}`,
    "--hold-period",
    "10ms",
    "--worker-poll-interval",
    "10ms",
    "--allow-private-callbacks",
    ...extra,
  ]);

test.each([
  ["SIGTERM", "false"],
  ["SIGINT", "false"],
  ["SIGTERM", "true"],
] as const)("%s finishes an in-flight callback delivery, exits 0 and leaves a clean database (--worker-thread %s)", async (signal, workerThread) => {
  const temp = tempDatabasePath();
  const receiver = startMockReceiver();
  receiver.setBehaviour({ delayMs: 700 });
  const server = await spawnDeliveringServer(temp.path, ["--worker-thread", workerThread]);
  try {
    const answer = await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `${receiver.url.origin}/slow` }), {
      authorization: basicAuth(VENDOR.name, VENDOR.password),
    });
    expect(answer.status).toBe(200);
    // Signal while the receiver is still holding the delivery.
    await waitUntil(() => receiver.received().length === 1);
    expect(await server.stop(signal)).toBe(0);
    expect(server.logs.map((l) => l.event)).toContain("stopped");
    const db = new Database(temp.path, { readonly: true });
    expect(db.query("SELECT status FROM callbacks").get()).toEqual({ status: "delivered" });
    db.close();
    // A clean close folds the WAL back into the database file.
    expect(!existsSync(`${temp.path}-wal`) || statSync(`${temp.path}-wal`).size === 0).toBe(true);
  } finally {
    await server.stop("SIGKILL");
    await receiver.stop();
    temp.cleanup();
  }
});

/** A raw HTTP/1.1 connection: requests on it are sent on the same socket (kept alive). */
async function openConnection(url: string) {
  const { hostname, port } = new URL(url);
  let buffered = "";
  let waiting: (() => void) | null = null;
  let closed = false;
  const socket = await Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      data(_socket, chunk) {
        buffered += chunk.toString();
        waiting?.();
      },
      close() {
        closed = true;
        waiting?.();
      },
      error() {},
    },
  });
  /** One request; resolves to its status and parsed JSON body, or to "closed" if the connection ended first. */
  async function request(path: string): Promise<{ status: number; headers: string; body: unknown } | "closed"> {
    buffered = "";
    if (closed) return "closed";
    socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nConnection: keep-alive\r\n\r\n`);
    for (;;) {
      const end = buffered.indexOf("\r\n\r\n");
      const length = end >= 0 ? Number(/content-length: *(\d+)/i.exec(buffered.slice(0, end))?.[1] ?? 0) : -1;
      if (end >= 0 && buffered.length >= end + 4 + length) {
        const head = buffered.slice(0, end);
        return { status: Number(head.split(" ")[1]), headers: head.toLowerCase(), body: JSON.parse(buffered.slice(end + 4, end + 4 + length)) };
      }
      if (closed) return "closed";
      await new Promise<void>((resolve) => (waiting = resolve));
      waiting = null;
    }
  }
  return { request, close: () => socket.end() };
}

test("during the drain after SIGTERM, requests on kept-alive and on new connections get 503 Service is shutting down; `stopped` says timed_out when a delivery outlived the timeout", async () => {
  const temp = tempDatabasePath();
  const receiver = startMockReceiver();
  receiver.setBehaviour({ delayMs: 20_000 });
  const server = await spawnDeliveringServer(temp.path, ["--shutdown-timeout", "3s", "--shutdown-drain", "1500ms"]);
  try {
    const answer = await post(`${server.url}/v1/postLead`, validLead({ call_back_url: `${receiver.url.origin}/slow` }), {
      authorization: basicAuth(VENDOR.name, VENDOR.password),
    });
    expect(answer.status).toBe(200);
    await waitUntil(() => receiver.received().length === 1);
    const keptAlive = await openConnection(server.url);
    expect(await keptAlive.request("/healthz")).toMatchObject({ status: 200 });
    const started = performance.now();
    server.process.kill("SIGTERM");
    await waitUntil(() => server.logs.some((line) => line.event === "shutting_down"));
    const shuttingDown = { success_bit: false, message: [{ error: "Service is shutting down" }] };
    const late = await keptAlive.request("/v1/leads/00000000-0000-0000-0000-000000000000");
    expect(late).toMatchObject({ status: 503, body: shuttingDown });
    expect((late as { headers: string }).headers).toContain("connection: close");
    const fresh = await openConnection(server.url);
    expect(await fresh.request("/v1/leads/00000000-0000-0000-0000-000000000000")).toMatchObject({ status: 503, body: shuttingDown });
    fresh.close();
    expect(await server.process.exited).toBe(0);
    // Within the timeout, plus a generous margin for a loaded machine.
    expect(performance.now() - started).toBeLessThan(3_000 + 2_000);
    expect(server.logs.find((line) => line.event === "stopped")).toMatchObject({ timed_out: true, clean: true });
  } finally {
    await server.stop("SIGKILL");
    await receiver.stop();
    temp.cleanup();
  }
}, 30_000);

test("SIGTERM on a full disk (tmpfs): the process exits within the timeout, non-zero, saying the database could not be closed", async () => {
  const disk = mountSmallDisk(24);
  if (typeof disk === "string") return void console.log(`full-disk shutdown test skipped: ${disk}`);
  console.log(`full-disk shutdown test on a 24 MiB tmpfs at ${disk.dir}`);
  let server: Awaited<ReturnType<typeof spawnServer>> | undefined;
  try {
    server = await spawnServer([
      "--database",
      `${disk.dir}/leads.db`,
      "--bootstrap-vendor",
      `${VENDOR.name}:${VENDOR.password}`,
      "--disk-reserve",
      "0",
      "--shutdown-timeout",
      "3s",
    ]);
    const authorization = basicAuth(VENDOR.name, VENDOR.password);
    for (let i = 0; i < 20; i++) expect((await postLead(server!, authorization)).status).toBe(200);
    disk.fill();
    let status = 200;
    for (let i = 0; status === 200 && i < 20_000; i++) status = (await postLead(server!, authorization)).status;
    expect(status).toBe(503);
    const started = performance.now();
    server.process.kill("SIGTERM");
    const exited = await Promise.race([server.process.exited, Bun.sleep(3_000 + 2_000).then(() => "still running")]);
    expect(exited).toBe(1);
    expect(performance.now() - started).toBeLessThan(5_000);
    expect(server.logs.find((line) => line.event === "shutdown_failed")).toMatchObject({ level: "error", error: expect.stringContaining("full") });
    expect(server.logs.find((line) => line.event === "stopped")).toMatchObject({ clean: false });
  } finally {
    await server?.stop("SIGKILL");
    disk.unmount();
  }
}, 30_000);

test("a start that fails once the database is open (the console's port in use) rejects, and closes the database first", async () => {
  const busy = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const temp = tempDatabasePath();
  // The server's database, opened by the test so it can see whether the server closed it.
  const database = openDatabase(temp.path);
  try {
    // The API's port is taken before the database is opened; the console's once it is.
    const config = { ...defaultConfig(), host: "127.0.0.1", port: 0, consolePort: busy.port, databasePath: temp.path, bootstrapVendor: VENDOR };
    await expect(startServer(config, createLogger("silent"), { database })).rejects.toThrow("choose another with --console-port");
    expect(() => database.sqlite.query("SELECT 1").get()).toThrow(/closed/i);
    // Closed cleanly: the WAL was folded back into the database file.
    expect(!existsSync(`${temp.path}-wal`) || statSync(`${temp.path}-wal`).size === 0).toBe(true);
  } finally {
    busy.stop(true);
    temp.cleanup();
  }
});
