// `leads decide` as an operator runs it: a separate process against the service's database file.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { productCommand } from "../helpers/process.ts";
import { startTestServer, type TestServer } from "../helpers/server.ts";
import { validLead } from "../helpers/leads.ts";

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.stop());

function cli(...args: string[]) {
  const run = Bun.spawnSync([...productCommand(), ...args, "--database", server.config.databasePath], { stdout: "pipe", stderr: "pipe" });
  return { code: run.exitCode, out: run.stdout.toString(), err: run.stderr.toString() };
}

async function pendingLead(): Promise<string> {
  const answer = await fetch(`${server.url}/v1/postLead`, { method: "POST", headers: { authorization: server.auth }, body: JSON.stringify(validLead()) });
  return ((await answer.json()) as { lead_id: string }).lead_id;
}

test("records a decision with its reason on a pending lead", async () => {
  const leadId = await pendingLead();
  const run = cli("leads", "decide", leadId, "reject", "--reason", "fraud check");
  expect(run).toMatchObject({ code: 0, out: expect.stringContaining("will be rejected") });
  expect(server.db.sqlite.query("SELECT operator_decision, operator_reason FROM leads WHERE id = ?").get(leadId)).toEqual({
    operator_decision: "reject",
    operator_reason: "fraud check",
  });
});

test("an unknown lead, a decided lead and a bad decision are clear errors with exit code 2", async () => {
  expect(cli("leads", "decide", "no-such-lead", "accept")).toMatchObject({ code: 2, err: expect.stringContaining("No such lead: no-such-lead") });
  const leadId = await pendingLead();
  server.db.sqlite.run("UPDATE leads SET status = 'accepted' WHERE id = ?", [leadId]);
  expect(cli("leads", "decide", leadId, "reject")).toMatchObject({ code: 2, err: expect.stringContaining("already accepted") });
  expect(cli("leads", "decide", leadId, "maybe")).toMatchObject({ code: 2, err: expect.stringContaining("Usage") });
});
