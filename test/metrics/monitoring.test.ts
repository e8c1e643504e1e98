// The monitoring shipped in monitoring/: the Grafana dashboard and the Prometheus alert rules ask
// only for series the real service exposes (checked against a live scrape, so neither can drift
// from src/metrics), and promtool (Debian's prometheus package) accepts the rules and the
// dashboard's queries and proves each alert fires on the series it names. The promtool half is
// skipped outside CI without promtool, like promtool.test.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { validLead } from "../helpers/leads.ts";
import { basicAuth, post, startApiTestServer, type ApiTestServer } from "../helpers/server.ts";

const MONITORING = join(import.meta.dir, "../../monitoring");
const promtool = Bun.which("promtool");
const runsPromtool = promtool !== null || Bun.env.CI === "true";
const needsPromtool = promtool ? "" : " (needs promtool: apt-get install prometheus)";

interface Panel {
  title: string;
  targets: { expr: string }[];
}
interface AlertRule {
  alert: string;
  expr: string;
}

const dashboard: { panels: Panel[] } = await Bun.file(join(MONITORING, "grafana-dashboard.json")).json();
const alertRules: AlertRule[] = (Bun.YAML.parse(await Bun.file(join(MONITORING, "alerts.yml")).text()) as { groups: { rules: AlertRule[] }[] }).groups.flatMap(
  (group) => group.rules,
);
interface AlertCase {
  alertname: string;
  exp_alerts: unknown[];
}
const alertCases = (Bun.YAML.parse(await Bun.file(join(MONITORING, "alerts.test.yml")).text()) as { tests: { alert_rule_test: AlertCase[] }[] }).tests.flatMap(
  (t) => t.alert_rule_test,
);
const dashboardQueries = dashboard.panels.flatMap((panel) => panel.targets.map((target) => target.expr));
// Grafana's interval variable, as Prometheus would receive it.
const asPromQl = (expr: string) => expr.replaceAll("$__rate_interval", "5m");

/** The series names and label names of an exposition. */
function exposed(exposition: string): { names: Set<string>; labels: Set<string> } {
  const samples = exposition.split("\n").filter((line) => line !== "" && !line.startsWith("#"));
  return {
    names: new Set(samples.map((line) => /^[a-z_:]+/.exec(line)![0])),
    labels: new Set(samples.flatMap((line) => [...line.matchAll(/[{,]([a-z_]+)="/g)].map((match) => match[1]!))),
  };
}

const metricNames = (expr: string) => expr.match(/\blead_ingress_[a-z_]+/g) ?? [];
const groupingLabels = (expr: string) => [...expr.matchAll(/\bby \(([^)]*)\)/g)].flatMap((match) => match[1]!.split(",").map((label) => label.trim()));

let server: ApiTestServer;
let scrape: ReturnType<typeof exposed>;
beforeAll(async () => {
  server = await startApiTestServer();
  // Traffic of the kinds whose series appear on first use (requests by route and status, their durations).
  await post(`${server.url}/v1/postLead`, validLead(), { authorization: server.auth });
  await post(`${server.url}/v1/prePing`, {}, { authorization: basicAuth("nobody", "x") });
  // A lead the acceptance policy refuses (its series appear on the first refusal by an entry), and a
  // cap (its gauges have a series per enabled cap of the policy in force).
  const policy = {
    rules: [{ name: "no-tx", require: { field: "state", op: "not_equals", value: "TX" } }],
    caps: [{ name: "daily", counts: "leads", max: 1000, per: "day" }],
    checks: [{ name: "scrub", url: "http://127.0.0.1:9/check", campaigns: ["checked"], timeout_ms: 200 }],
  };
  await importPolicy(server.store, JSON.stringify(policy), "cli:test");
  for (let tries = 0; (await post(`${server.url}/v1/postLead`, validLead({ state: "TX" }), { authorization: server.auth })).status !== 422; tries++) {
    if (tries > 100) throw new Error("the policy was not applied");
    await Bun.sleep(50);
  }
  // A lead an external check is asked about (its address, private, is refused: an error, accepted
  // by on_error): the checks' series appear on a check's first result.
  await post(`${server.url}/v1/postLead`, validLead({ vendor_campaign_name: "checked" }), { authorization: server.auth });
  await fetch(`${server.url}/metrics`);
  scrape = exposed(await (await fetch(`${server.url}/metrics`)).text());
});
afterAll(() => server.stop());

test("the dashboard is Grafana JSON with a query in every panel", () => {
  expect(dashboard.panels.length).toBeGreaterThanOrEqual(10);
  for (const panel of dashboard.panels) expect({ panel: panel.title, hasQuery: panel.targets.length > 0 }).toEqual({ panel: panel.title, hasQuery: true });
  expect(dashboardQueries.every((expr) => metricNames(expr).length > 0)).toBe(true);
});

test.each([
  ["the dashboard", dashboardQueries],
  ["the alert rules", alertRules.map((rule) => rule.expr)],
])("every series and label %s asks for is in a live scrape of the service", (_what, queries) => {
  for (const expr of queries) {
    for (const name of metricNames(expr)) expect({ expr, name, exposed: scrape.names.has(name) }).toEqual({ expr, name, exposed: true });
    for (const label of groupingLabels(expr)) {
      // `instance` is Prometheus's own, added at scrape time.
      if (label !== "instance") expect({ expr, label, exposed: scrape.labels.has(label) }).toEqual({ expr, label, exposed: true });
    }
  }
});

test("the dashboard covers what operators asked for: requests, intake by vendor, latency, decisions, callbacks, queue, dead callbacks, policy refusals", () => {
  const asked = new Set(dashboardQueries.flatMap(metricNames));
  for (const name of [
    "lead_ingress_http_requests_total",
    "lead_ingress_intake_total",
    "lead_ingress_http_request_duration_seconds_bucket",
    "lead_ingress_intake_to_decision_seconds_bucket",
    "lead_ingress_callback_attempts_total",
    "lead_ingress_callback_attempt_duration_seconds_bucket",
    "lead_ingress_callback_queue_depth",
    "lead_ingress_callback_oldest_pending_age_seconds",
    "lead_ingress_callbacks_dead",
    "lead_ingress_ready",
    "lead_ingress_policy_refusals_total",
    "lead_ingress_check_answers_total",
    "lead_ingress_check_duration_seconds_bucket",
    "lead_ingress_check_cache_hits_total",
    "lead_ingress_certificate_verifications_total",
    "lead_ingress_certificate_verification_duration_seconds_bucket",
  ])
    expect(asked).toContain(name);
});

test.skipIf(!runsPromtool)(`promtool accepts the alert rules and proves each alert fires on its series${needsPromtool}`, () => {
  expect(promtool).not.toBeNull();
  const run = (...args: string[]) => {
    const result = Bun.spawnSync([promtool!, ...args], { cwd: MONITORING });
    return { exitCode: result.exitCode, said: `${result.stdout}${result.stderr}` };
  };
  expect(run("check", "rules", "alerts.yml")).toMatchObject({ exitCode: 0 });
  expect(run("test", "rules", "alerts.test.yml")).toMatchObject({ exitCode: 0 });
  // Every alert has a case in which it fires.
  const firing = new Set(alertCases.filter((c) => c.exp_alerts.length > 0).map((c) => c.alertname));
  expect([...firing].sort()).toEqual(alertRules.map((rule) => rule.alert).sort());
});

test.skipIf(!runsPromtool)(`promtool parses every query of the dashboard${needsPromtool}`, async () => {
  expect(promtool).not.toBeNull();
  // As recording rules: `promtool check rules` parses their PromQL.
  const dir = mkdtempSync(join(tmpdir(), "dashboard-queries-"));
  try {
    const rules = dashboardQueries.map((expr, i) => `      - record: dashboard:query_${i}\n        expr: ${JSON.stringify(asPromQl(expr))}`);
    await Bun.write(join(dir, "queries.yml"), `groups:\n  - name: dashboard\n    rules:\n${rules.join("\n")}\n`);
    const check = Bun.spawnSync([promtool!, "check", "rules", join(dir, "queries.yml")]);
    expect({ exitCode: check.exitCode, said: `${check.stdout}${check.stderr}` }).toMatchObject({ exitCode: 0 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
