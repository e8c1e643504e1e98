// A vendor's signing secret rotated with an overlap (docs/contract.md §12), end to end on both
// databases: the real server with its worker and the mock receiver on 127.0.0.1 ephemeral ports,
// the operator's `vendors rotate-secret` as a separate process on the server's database. During
// the overlap a callback carries two signatures, the new secret's first, and each verifies with the
// reference `standardwebhooks` package under its own secret; after it only the new one signs.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { cli } from "../helpers/cli.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { freshPgDatabase, post, startTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";

/** Long enough for a lead posted just after the rotation to be decided and called back within it. */
const OVERLAP = "4s";

const SETTINGS = { holdPeriodMs: 100, workerPollIntervalMs: 20, allowPrivateCallbacks: true };
const BACKENDS = {
  SQLite: async () => startTestServer(SETTINGS),
  PostgreSQL: async () => startTestServer({ ...SETTINGS, databasePath: await freshPgDatabase() }),
};

// Each backend's server and receiver, all started before the tests: each test waits out the overlap,
// and the two run at once (bun's test.concurrent, which runs a describe block with hooks of its own
// apart from the others).
const started: Record<string, { server: ApiTestServer; receiver: MockReceiver }> = {};
beforeAll(async () => {
  for (const [backend, start] of Object.entries(BACKENDS)) started[backend] = { server: await start(), receiver: startMockReceiver() };
});
afterAll(async () => {
  for (const { server, receiver } of Object.values(started)) await Promise.all([server.stop(), receiver.stop()]);
});

for (const backend of Object.keys(BACKENDS)) {
  describe(`rotate-secret with an overlap (${backend})`, () => {
    const server = () => started[backend]!.server;
    const receiver = () => started[backend]!.receiver;

    let paths = 0;
    /** Posts a lead whose callback goes to a path of its own, and answers that callback once it arrives. */
    async function calledBack() {
      const path = `/rotation/${++paths}`;
      const answer = await post(`${server().url}/v1/postLead`, validLead({ phone_number: uniquePhone(), call_back_url: `${receiver().url.origin}${path}` }), {
        authorization: server().auth,
      });
      expect(answer.status).toBe(200);
      return (await receiver().waitFor(1, { path, timeoutMs: 10_000 }))[0]!;
    }
    const verifies = (secret: string, body: string, headers: Record<string, string>) => {
      try {
        new Webhook(secret).verify(body, headers);
        return true;
      } catch {
        return false;
      }
    };

    test.concurrent("during the overlap both secrets' signatures verify, the new one's first; after it only the new one's", async () => {
      const oldSecret = (await server().store.read((t) => op(t.vendors.findByName(VENDOR.name))))!.signingSecret;
      const rotation = await cli(server().config.databasePath, "vendors", "rotate-secret", VENDOR.name, "--signing-secret-overlap", OVERLAP);
      expect(rotation.code).toBe(0);
      const newSecret = /^signing secret:\s+(whsec_\S+)$/m.exec(rotation.out)![1]!;
      const until = Date.parse(/^old secret signs until:\s+(\S+)$/m.exec(rotation.out)![1]!);
      expect(newSecret).not.toBe(oldSecret);

      const during = await calledBack();
      expect(Number(during.headers["webhook-timestamp"]) * 1000).toBeLessThan(until);
      const values = during.headers["webhook-signature"]!.split(" ");
      expect(values).toHaveLength(2);
      const alone = (value: string) => ({ ...during.headers, "webhook-signature": value });
      expect([verifies(newSecret, during.body, alone(values[0]!)), verifies(oldSecret, during.body, alone(values[0]!))]).toEqual([true, false]);
      expect([verifies(oldSecret, during.body, alone(values[1]!)), verifies(newSecret, during.body, alone(values[1]!))]).toEqual([true, false]);
      // A receiver holding either secret accepts the callback as sent.
      expect([verifies(newSecret, during.body, during.headers), verifies(oldSecret, during.body, during.headers)]).toEqual([true, true]);

      await Bun.sleep(Math.max(0, until - Date.now()));
      const after = await calledBack();
      expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
      expect([verifies(newSecret, after.body, after.headers), verifies(oldSecret, after.body, after.headers)]).toEqual([true, false]);
    });
  });
}
