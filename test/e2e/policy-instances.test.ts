// The policy in force across instances (docs/contract.md §10): two service processes on one
// database, the policy imported by the operator's CLI while they run: both apply it within 2 s,
// without a restart. On the backend LEAD_INGRESS_TEST_BACKEND names (PostgreSQL is where several
// instances run; on SQLite the two processes share the file).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import { cli } from "../helpers/cli.ts";
import { uniquePhone } from "../helpers/leads.ts";
import { spawnServer, type ServerProcess } from "../helpers/process.ts";
import { basicAuth, post, type TestDatabase, testDatabase, tempDatabasePath, VENDOR } from "../helpers/server.ts";

const auth = { authorization: basicAuth(VENDOR.name, VENDOR.password) };
let database: TestDatabase;
const instances: ServerProcess[] = [];

beforeAll(async () => {
  database = await testDatabase();
  const flags = ["--database", database.setting, "--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`, "--rate-limit", "0"];
  // One after the other: the first creates the database and the vendor.
  instances.push(await spawnServer(flags));
  instances.push(await spawnServer(flags));
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await database.close();
});

const closedPing = (url: string) => post(`${url}/v1/prePing`, { phone_number: uniquePhone(), vendor_campaign_name: "solar-q4" }, auth);

test("a policy imported by the CLI while two instances run is applied by both within 2 s", async () => {
  for (const instance of instances) expect((await closedPing(instance.url)).status).toBe(200);
  const temp = tempDatabasePath();
  const path = join(temp.path, "../policy.json");
  await Bun.write(path, JSON.stringify({ schedules: [{ name: "closed", campaigns: ["solar-q4"], open: {}, reason: "Closed for the test" }] }));
  const imported = await cli(database.setting, "rules", "import", path);
  temp.cleanup();
  expect(imported.code).toBe(0);
  const started = Date.now();
  const took = await Promise.all(
    instances.map(async (instance) => {
      for (;;) {
        const answer = await closedPing(instance.url);
        if (answer.status === 422) {
          expect(answer.body.message).toEqual([{ error: "Closed for the test" }]);
          return Date.now() - started;
        }
        if (Date.now() - started > 5_000) throw new Error(`${instance.url} did not apply the policy within 5 s`);
        await Bun.sleep(50);
      }
    }),
  );
  for (const ms of took) expect(ms).toBeLessThan(2_000);
}, 60_000);
