// docs/contract.md §2: authentication comes before the body is read. Not only the answers (test/e2e pins
// 401 before 413 and 400): a stranger's body is never pulled from the socket at all, on every /v1
// route and on unknown /v1 paths, so the auth plugin provably runs before any body reading.
import { afterAll, expect, test } from "bun:test";
import { createApp } from "../../src/app.ts";
import { defaultConfig } from "../../src/config/index.ts";
import { sqliteBackend } from "../../src/backend/index.ts";
import { openDatabase } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { createLogger } from "../../src/log/index.ts";
import { createMetrics } from "../../src/metrics/index.ts";

const database = openDatabase(":memory:");
const app = createApp({
  config: { ...defaultConfig(), databasePath: ":memory:" },
  backend: sqliteBackend(database, createGroupCommitter(database.sqlite)),
  log: createLogger("silent"),
  metrics: createMetrics(),
});
afterAll(() => database.close());

/** A body of a few chunks that counts how often it was read. */
function countedBody() {
  const reads = { count: 0 };
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (++reads.count > 3) return controller.close();
      controller.enqueue(new TextEncoder().encode("{"));
    },
  });
  return { stream, reads };
}

test.each([
  ["POST", "/v1/postLead"],
  ["POST", "/v1/prePing"],
  ["PUT", "/v1/leads/abc"],
  ["POST", "/v1/unknown"],
])("%s %s without credentials: 401, the body untouched", async (method, path) => {
  const { stream, reads } = countedBody();
  const answer = await app.handle(
    new Request(`http://localhost${path}`, {
      method,
      body: stream,
      headers: { authorization: "Basic bm9ib2R5Om5vdGhpbmc=", "content-type": "application/json" },
    }),
  );
  expect(answer.status).toBe(401);
  // A stream may be pulled once ahead of a reader (its high-water mark); a read would pull on and on.
  expect(reads.count).toBeLessThanOrEqual(1);
});
