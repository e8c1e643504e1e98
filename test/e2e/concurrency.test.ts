// Concurrent postLeads with one number: exactly one 200, the others 422 — decided by SQLite's
// conditional upsert, so it holds across processes too (docs/contract.md §5). The leads differ (another
// customer each): identical copies from one vendor would be retries of one lead (§6).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { spawnServer } from "../helpers/process.ts";
import { op } from "../../src/db/script.ts";
import { post, startApiTestServer, tempDatabasePath, VENDOR, type ApiTestServer } from "../helpers/server.ts";

const statusCounts = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((acc, s) => {
    acc[s] = (acc[s] ?? 0) + 1;
    return acc;
  }, {});

// On SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
describe("one server", () => {
  let server: ApiTestServer;
  beforeAll(async () => (server = await startApiTestServer()));
  afterAll(() => server.stop());

  test("20 concurrent postLeads with one phone → exactly one 200, nineteen 422, one lead stored", async () => {
    const phone = uniquePhone();
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        post(`${server.url}/v1/postLead`, validLead({ phone_number: phone, customer_name: `Caller ${i}` }), { authorization: server.auth }),
      ),
    );
    expect(statusCounts(answers.map((a) => a.status))).toEqual({ 200: 1, 422: 19 });
    const winner = (await server.store.read((t) => op(t.leads.detail(answers.find((a) => a.status === 200)!.body.lead_id))))!;
    const leads = await server.store.read((t) => op(t.leads.list({ vendorName: VENDOR.name, limit: 1_000_000 })));
    expect(leads.filter((lead) => lead.phone_e164 === winner.phone_e164)).toHaveLength(1);
  });

  test("20 concurrent postLeads with different phones → all 200", async () => {
    const answers = await Promise.all(Array.from({ length: 20 }, () => post(`${server.url}/v1/postLead`, validLead(), { authorization: server.auth })));
    expect(statusCounts(answers.map((a) => a.status))).toEqual({ 200: 20 });
    expect(new Set(answers.map((a) => a.body.lead_id)).size).toBe(20);
  });
});

describe("two server processes on one database file", () => {
  test("both start together on a fresh file; 20 concurrent postLeads with one phone spread over both → exactly one 200", async () => {
    const temp = tempDatabasePath();
    const args = ["--database", temp.path, "--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`];
    // Started together on a fresh file: both migrate and bootstrap at once, and both must start.
    const [first, second] = await Promise.all([spawnServer(args), spawnServer(args)]);
    try {
      const auth = { authorization: `Basic ${Buffer.from(`${VENDOR.name}:${VENDOR.password}`).toString("base64")}` };
      const phone = uniquePhone();
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          post(`${(i % 2 ? first : second).url}/v1/postLead`, validLead({ phone_number: phone, customer_name: `Caller ${i}` }), auth),
        ),
      );
      expect(statusCounts(answers.map((a) => a.status))).toEqual({ 200: 1, 422: 19 });
    } finally {
      await Promise.all([first.stop(), second.stop()]);
      temp.cleanup();
    }
  });
});
