// SIGTERM / SIGINT: stop taking requests, finish in-flight deliveries within the bound, close the
// database cleanly (CONTRACT §9).
import { expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { existsSync, statSync } from "node:fs";
import { startMockReceiver } from "../../src/mock-receiver/index.ts";
import { validLead } from "../helpers/leads.ts";
import { spawnServer } from "../helpers/process.ts";
import { basicAuth, post, tempDatabasePath, VENDOR } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

test.each(["SIGTERM", "SIGINT"] as const)("%s finishes an in-flight callback delivery, exits 0 and leaves a clean database", async (signal) => {
  const temp = tempDatabasePath();
  const receiver = startMockReceiver();
  receiver.setBehaviour({ delayMs: 700 });
  const server = await spawnServer([
    "--database", temp.path,
    "--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`,
    "--hold-period", "10ms",
    "--worker-poll-interval", "10ms",
    "--allow-private-callbacks",
  ]);
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

