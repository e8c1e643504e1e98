// The portal's thread is started by the first /portal request (src/portal-thread/index.ts): a
// served process, as an operator runs it, has none while ready, and eight first requests arriving
// together start one, each answered the sign-in page. Counted by the names of the process's threads
// in /proc (a Bun Worker's thread is named "Worker"). Linux only.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { spawnServer, type ServerProcess } from "../helpers/process.ts";
import { tempDatabasePath } from "../helpers/server.ts";

const temp = tempDatabasePath();
let server: ServerProcess;

beforeAll(async () => {
  server = await spawnServer(["--database", temp.path]);
});

afterAll(async () => {
  await server?.stop();
  temp.cleanup();
});

/** How many of the server's threads are Bun Workers. */
function workerThreads(): number {
  const tasks = `/proc/${server.process.pid}/task`;
  return readdirSync(tasks).filter((task) => {
    try {
      return readFileSync(`${tasks}/${task}/comm`, "utf8").trim() === "Worker";
    } catch {
      return false; // the thread ended meanwhile
    }
  }).length;
}

test.skipIf(process.platform !== "linux")("a ready server has no portal thread; concurrent first portal requests start one, and are answered", async () => {
  expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
  const before = workerThreads();
  const pages = await Promise.all(Array.from({ length: 8 }, () => fetch(`${server.url}/portal/login`)));
  expect(pages.map((page) => page.status)).toEqual(Array(8).fill(200));
  for (const page of pages) expect(await page.text()).toContain("Vendor sign-in");
  expect(workerThreads()).toBe(before + 1);
  expect(server.logs.some((line) => line.event === "portal_thread_failed")).toBe(false);
});
