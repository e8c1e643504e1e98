// /metrics as Prometheus itself reads it: `promtool check metrics` (Debian's prometheus package)
// parses the exposition and lints names, types, units and HELP texts. CI installs promtool
// (scripts/ensure-promtool.sh) and fails without it; elsewhere the test is skipped, saying why.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { validLead } from "../helpers/leads.ts";
import { post, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";

const promtool = Bun.which("promtool");
const runs = promtool !== null || Bun.env.CI === "true";

let server: ApiTestServer;
beforeAll(async () => {
  if (runs) server = await startApiTestServer();
});
afterAll(() => server?.stop());

test.skipIf(!runs)(`promtool check metrics passes after traffic of every kind${promtool ? "" : " (needs promtool: apt-get install prometheus)"}`, async () => {
  expect(promtool).not.toBeNull();
  const auth = { authorization: server.auth };
  await post(`${server.url}/v1/postLead`, validLead(), auth);
  await post(`${server.url}/v1/postLead`, { nope: 1 }, auth);
  await post(`${server.url}/v1/prePing`, { phone_number: "2125550100" }, { authorization: "Basic eDp5" });
  await fetch(`${server.url}/v1/leads/${crypto.randomUUID()}`, { headers: auth });
  const exposition = await (await fetch(`${server.url}/metrics`)).text();
  const check = Bun.spawnSync([promtool!, "check", "metrics"], { stdin: new TextEncoder().encode(exposition) });
  const said = `${check.stdout.toString()}${check.stderr.toString()}`.trim();
  expect({ exitCode: check.exitCode, said }).toEqual({ exitCode: 0, said: "" });
  expect(exposition).toContain("lead_ingress_http_request_duration_seconds_bucket");
});
