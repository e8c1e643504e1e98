// Checkpoints run on their own thread in the product as shipped (CI runs this against the compiled
// binary too, where the thread's entry module must have been built in).
import { expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { validLead } from "../helpers/leads.ts";
import { spawnServer } from "../helpers/process.ts";
import { basicAuth, post, tempDatabasePath, VENDOR } from "../helpers/server.ts";
import { walRestarts } from "../helpers/wal.ts";

const LEADS = 3_000;

test("3,000 leads (up to 9,000 on a loaded machine): the checkpoint thread restarts the WAL with no failure logged, and a clean stop leaves no WAL", async () => {
  const temp = tempDatabasePath();
  const server = await spawnServer(["--database", temp.path, "--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`, "--rate-limit", "0"]);
  try {
    const auth = { authorization: basicAuth(VENDOR.name, VENDOR.password) };
    // A restart needs a checkpoint that found no reader in the WAL, then a write: on a loaded
    // machine the first 3,000 leads may bring one only, so a few more waves may be sent.
    for (let sent = 0; sent < LEADS || (walRestarts(`${temp.path}-wal`) < 2 && sent < 3 * LEADS); sent += 50) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => post(`${server.url}/v1/postLead`, validLead(), auth)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    }
    // Automatic checkpoints are off unless the thread failed, which is logged as an error.
    expect(server.logs.map((entry) => entry.event)).toContain("checkpoint_thread_started");
    expect(walRestarts(`${temp.path}-wal`)).toBeGreaterThanOrEqual(2);
    expect(server.logs.filter((entry) => entry.level === "error")).toEqual([]);
    // A clean stop closes the thread's connection, then folds the WAL back into the database.
    expect(await server.stop()).toBe(0);
    expect(!existsSync(`${temp.path}-wal`) || statSync(`${temp.path}-wal`).size === 0).toBe(true);
  } finally {
    await server.stop("SIGKILL");
    temp.cleanup();
  }
}, 60_000);
