// Checkpoints run on their own thread in the product as shipped (CI runs this against the compiled
// binary too, where the thread's entry module must have been built in).
import { expect, test } from "bun:test";
import { validLead } from "../helpers/leads.ts";
import { spawnServer } from "../helpers/process.ts";
import { basicAuth, post, tempDatabasePath, VENDOR } from "../helpers/server.ts";
import { walRestarts } from "../helpers/wal.ts";

const LEADS = 3_000;

test("after 3,000 leads the WAL has been checkpointed off the event loop and restarted, with no failure logged", async () => {
  const temp = tempDatabasePath();
  const server = await spawnServer(["--database", temp.path, "--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`, "--rate-limit", "0"]);
  try {
    const auth = { authorization: basicAuth(VENDOR.name, VENDOR.password) };
    for (let wave = 0; wave < LEADS / 50; wave++) {
      const answers = await Promise.all(Array.from({ length: 50 }, () => post(`${server.url}/v1/postLead`, validLead(), auth)));
      expect(answers.map((answer) => answer.status)).toEqual(Array(50).fill(200));
    }
    // The thread checkpoints every 1,000 writes; automatic checkpoints are off unless it failed.
    expect(walRestarts(`${temp.path}-wal`)).toBeGreaterThanOrEqual(2);
    expect(server.logs.filter((entry) => entry.level === "error")).toEqual([]);
  } finally {
    await server.stop();
    temp.cleanup();
  }
}, 60_000);
