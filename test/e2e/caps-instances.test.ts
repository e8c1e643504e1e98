// Caps across instances (docs/contract.md §10): three service processes on one database, a cap
// with 5 slots and 20 simultaneous postLeads spread over them: exactly 5 are accepted, because the
// database counts, not any one process. On the backend LEAD_INGRESS_TEST_BACKEND names (PostgreSQL
// is where several instances run; on SQLite the three processes share the file).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { postLead } from "../helpers/api.ts";
import { validLead } from "../helpers/leads.ts";
import { installPolicy } from "../helpers/policy.ts";
import { spawnServer, type ServerProcess } from "../helpers/process.ts";
import { basicAuth, type TestDatabase, testDatabase, VENDOR } from "../helpers/server.ts";

const auth = basicAuth(VENDOR.name, VENDOR.password);
let database: TestDatabase;
const instances: ServerProcess[] = [];

beforeAll(async () => {
  database = await testDatabase();
  const flags = ["--database", database.setting, "--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`, "--rate-limit", "0"];
  // One after the other: the first creates the database and the vendor.
  for (let i = 0; i < 3; i++) instances.push(await spawnServer(flags));
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await database.close();
});

test("a cap with 5 slots and 20 simultaneous postLeads spread over 3 instances: exactly 5 are accepted", async () => {
  await installPolicy(await database.store(), instances, auth, {
    caps: [{ name: "shared", campaigns: ["shared"], counts: "leads", max: 5, per: "day", time_zone: "America/New_York" }],
  });
  const answers = await Promise.all(
    Array.from({ length: 20 }, (_, i) => postLead(instances[i % instances.length]!, auth, validLead({ vendor_campaign_name: "shared" }))),
  );
  expect(answers.filter((answer) => answer.status === 200)).toHaveLength(5);
  const refused = answers.filter((answer) => answer.status === 422);
  expect(refused).toHaveLength(15);
  for (const answer of refused) {
    expect(answer.body.message).toEqual([{ error: "Cap reached: shared" }]);
    expect(Number(answer.headers.get("retry-after"))).toBeGreaterThan(0);
  }
  expect(await database.rows("SELECT count(*) AS n FROM leads WHERE vendor_campaign_name = 'shared'")).toEqual([{ n: 5 }]);
  expect(await database.rows("SELECT used FROM cap_usage WHERE cap_name = 'shared'")).toEqual([{ used: 5 }]);
}, 60_000);
