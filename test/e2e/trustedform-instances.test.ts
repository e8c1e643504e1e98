// TrustedForm verification with two service processes on one database (docs/certificates.md
// "Wiring"): both workers look for the same pending leads, and the claim in each lead's finding
// lets only one ask TrustedForm about it; every lead is decided once, on its evidence. The key is
// given in the environment and appears in no log line. On the backend LEAD_INGRESS_TEST_BACKEND
// names (PostgreSQL is where several instances run; on SQLite the two processes share the file).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { validLead } from "../helpers/leads.ts";
import { spawnServer, type ServerProcess } from "../helpers/process.ts";
import { basicAuth, get, post, type TestDatabase, testDatabase, VENDOR } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const KEY = "tf-instances-key-0123456789";
const LEADS = 24;
const auth = { authorization: basicAuth(VENDOR.name, VENDOR.password) };
let database: TestDatabase;
let receiver: MockReceiver;
const instances: ServerProcess[] = [];

beforeAll(async () => {
  receiver = startMockReceiver({ port: 0 });
  // Slow enough that both instances' passes see the same leads while a request is out.
  receiver.setCertificate({ scenario: "slow", delayMs: 150 });
  database = await testDatabase();
  const flags = [
    "--database",
    database.setting,
    "--bootstrap-vendor",
    `${VENDOR.name}:${VENDOR.password}`,
    "--rate-limit",
    "0",
    "--hold-period",
    "3s",
    "--worker-poll-interval",
    "20ms",
    "--trustedform-base-url",
    new URL("/trustedform", receiver.url).href,
  ];
  const env = { LEAD_INGRESS_TRUSTEDFORM_API_KEY: KEY };
  // One after the other: the first creates the database and the vendor.
  instances.push(await spawnServer(flags, env));
  instances.push(await spawnServer(flags, env));
});
afterAll(async () => {
  await Promise.all(instances.map((instance) => instance.stop()));
  await receiver.stop();
  await database.close();
});

const certificateId = () => crypto.randomUUID().replaceAll("-", "").padEnd(40, "0");

test("each certificate is asked about once, whichever instance took the lead, and every lead is accepted on its evidence", async () => {
  const posted = await Promise.all(
    Array.from({ length: LEADS }, async (_, i) => {
      const certificate = certificateId();
      const answer = await post(`${instances[i % 2]!.url}/v1/postLead`, validLead({ certificate_url: `https://cert.trustedform.com/${certificate}` }), auth);
      expect(answer.status).toBe(200);
      return { leadId: answer.body.lead_id as string, certificate };
    }),
  );
  const statusOf = async (leadId: string) => (await get(`${instances[0]!.url}/v1/leads/${leadId}`, auth)).body.status;
  await waitUntil(async () => (await Promise.all(posted.map(({ leadId }) => statusOf(leadId)))).every((status) => status !== "pending"), 20_000, 100);
  for (const { leadId } of posted) expect(await statusOf(leadId)).toBe("accepted");
  const asked = new Map<string, number>();
  for (const request of receiver.certificateRequests()) asked.set(request.token, (asked.get(request.token) ?? 0) + 1);
  expect(posted.map(({ certificate }) => asked.get(certificate))).toEqual(Array(LEADS).fill(1));
  const rows = await database.rows("SELECT outcome, attempts FROM lead_findings");
  expect(rows).toHaveLength(LEADS);
  expect(rows.every((row) => row.outcome === "verified" && Number(row.attempts) === 1)).toBe(true);
  for (const instance of instances) expect(JSON.stringify(instance.logs)).not.toContain(KEY);
}, 60_000);
