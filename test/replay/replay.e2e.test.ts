// The fixtures replayed against the real service, started as a process the way an operator runs it
// (or the compiled binary under LEAD_INGRESS_TEST_BINARY), with the mock receiver in-process; on
// SQLite, or on PostgreSQL with LEAD_INGRESS_TEST_BACKEND=postgres.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createVendor } from "../../src/auth/vendors.ts";
import { op } from "../../src/db/script.ts";
import type { Store } from "../../src/store/index.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { replayCommand } from "../../src/cli/replay.ts";
import { freshPhone } from "../../src/replay/phone.ts";
import { runReplay, type ReplayOptions } from "../../src/replay/runner.ts";
import { addSuppression } from "../../src/suppression/index.ts";
import { listAudit } from "../../src/console/audit.ts";
import { exportPolicy, importPolicy } from "../../src/policy-in-force/manage.ts";
import { spawnServer, type ServerProcess } from "../helpers/process.ts";
import { basicAuth, freshPgDatabase, openTestStore, TEST_BACKEND, tempDatabasePath, untilAuthenticates } from "../helpers/server.ts";

const FIXTURES = join(import.meta.dir, "../../fixtures");
const VENDOR = { user: "replay-vendor", password: "replay-password" };
const OTHER = { user: "replay-other", password: "replay-other-password" };

let server: ServerProcess;
let receiver: MockReceiver;
let database: { store: Store; close(): Promise<void> };
let cleanup: () => void;
let options: ReplayOptions;
let setting: string;

beforeAll(async () => {
  const temp = tempDatabasePath();
  cleanup = temp.cleanup;
  setting = TEST_BACKEND === "postgres" ? await freshPgDatabase() : temp.path;
  // It also plays TrustedForm for 11-certificates/ and the check services of 10-policy/; the
  // vendor's signing secret, known once the server has started, is given to it then.
  receiver = startMockReceiver({ port: 0 });
  server = await spawnServer([
    "--trustedform-api-key",
    "replay-test-key",
    "--trustedform-base-url",
    new URL("/trustedform", receiver.url).href,
    "--database",
    setting,
    "--bootstrap-vendor",
    `${VENDOR.user}:${VENDOR.password}`,
    "--hold-period",
    "500ms", // long enough for "lookup-pending" to see pending, short for the callbacks
    "--worker-poll-interval",
    "50ms",
    "--allow-private-callbacks",
    "--verify-certificates",
    "--certificate-timeout",
    "1s",
    "--callback-retry-scale",
    "0.01", // the first retry after 50 ms, not 5 s
    "--policy-reload-interval",
    "100ms", // each policy case waits until its document applies
  ]);
  // What an operator would do with the CLI: a second vendor, a suppressed number, the signing secret.
  database = await openTestStore(setting);
  await createVendor(database.store, OTHER.user, OTHER.password);
  await untilAuthenticates(server, basicAuth(OTHER.user, OTHER.password));
  const suppressed = freshPhone().display;
  await addSuppression(database.store, suppressed, "replay test", "test");
  const vendor = await database.store.read((t) => op(t.vendors.findByName(VENDOR.user)));
  receiver.setSecret(vendor!.signingSecret);
  options = {
    url: server.url,
    vendor: VENDOR,
    otherVendor: OTHER,
    receiver: receiver.url.origin,
    suppressedPhone: suppressed,
    // The server's own database, as `replay --database` opens it: cases with a policy import theirs there.
    database: { store: database.store, actor: "cli:replay-test" },
    features: ["verify-certificates", "rate-limit", "trustedform"],
    timeoutMs: 10_000,
  };
});

afterAll(async () => {
  await receiver?.stop();
  await server?.stop();
  await database?.close();
  cleanup?.();
});

describe("replaying the fixtures", () => {
  // 10-policy/ sorts before 2-order-of-checks/: the cases after the policy cases pass only if none of
  // those policies is left in force.
  test("every case passes against the running service, none skipped", async () => {
    const report = await runReplay(FIXTURES, options);
    const failures = report.results.filter((r) => r.outcome !== "pass").map((r) => `${r.name}: ${r.outcome} ${r.problem ?? r.got}`);
    expect(failures).toEqual([]);
    expect(report.passed).toBeGreaterThanOrEqual(40);
    expect(report).toMatchObject({ failed: 0, skipped: 0 });
  }, 90_000);

  test("a second replay against the same instance passes too (fresh phones and keys per run)", async () => {
    const report = await runReplay(FIXTURES, { ...options, filter: "5-eligibility/duplicate" });
    expect(report.results.map((r) => r.outcome)).toEqual(["pass", "pass"]);
  });

  test("the policy in force before the replay is back after its policy cases and applied again; each import is audited", async () => {
    const before = JSON.stringify({ rules: [{ name: "kept", enabled: false, require: { field: "state", op: "blank" } }] });
    expect((await importPolicy(database.store, before, "cli:test")).kind).toBe("imported");
    const actor = "cli:put-back-test";
    const report = await runReplay(FIXTURES, { ...options, database: { store: database.store, actor }, filter: "10-policy/" });
    expect(report).toMatchObject({ failed: 0, skipped: 0 });
    expect(report.passed).toBeGreaterThanOrEqual(9);
    const inForce = await exportPolicy(database.store);
    expect(inForce.document).toBe(before);
    // The replay waited for the target to apply it, as it waits for each case's.
    expect(await (await fetch(`${server.url}/metrics`)).text()).toContain(`\nlead_ingress_policy_version ${inForce.version}\n`);
    const imports = (await listAudit(database.store, 1000)).filter((entry) => entry.actor === actor && entry.action === "policy.import");
    // One per case, going from one case's policy to the next directly, and one putting `before` back.
    expect(imports).toHaveLength(report.passed + 1);
    await importPolicy(database.store, "{}", "cli:test");
  }, 60_000);

  test("a database the target does not use: the case fails saying its policy was not applied, and so does putting back the one before", async () => {
    const other = tempDatabasePath();
    const elsewhere = await openTestStore(other.path);
    try {
      const report = await runReplay(FIXTURES, {
        ...options,
        database: { store: elsewhere.store, actor: "cli:test" },
        filter: "10-policy/leads-cap",
        timeoutMs: 1_500,
      });
      expect(report.results[0]).toMatchObject({ name: "10-policy/leads-cap-full", outcome: "fail" });
      expect(report.results[0]!.problem).toStartWith("putting the case's policy in force: the target did not apply policy version 1 within 1500 ms");
      // Putting back the policy before the replay cannot be confirmed either: reported, not hidden.
      expect(report.results[1]).toMatchObject({ name: "(after the last case)", outcome: "fail" });
      expect(report.results[1]!.problem).toContain("the target did not apply policy version 2");
    } finally {
      await elsewhere.close();
      other.cleanup();
    }
  }, 30_000);

  test("the command imports the cases' policies with --database, and skips them without it", async () => {
    const args = [FIXTURES, "--url", server.url, "--user", VENDOR.user, "--password", VENDOR.password, "--filter", "10-policy/leads-cap"];
    const lines: string[] = [];
    expect(await replayCommand([...args, "--database", setting], (line) => lines.push(line))).toBe(0);
    expect(lines).toContainEqual(expect.stringMatching(/^10-policy\/leads-cap-full \| 200 → 422 → 422 +\| 200 → 422 → 422 +\| PASS$/));
    lines.length = 0;
    expect(await replayCommand(args, (line) => lines.push(line))).toBe(0);
    expect(lines).toContainEqual(expect.stringMatching(/^10-policy\/leads-cap-full \|.*\| SKIP$/));
    expect(lines).toContainEqual(expect.stringContaining("needs --database"));
  }, 30_000);
});

describe("reporting", () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), "replay-bad-"));
    mkdirSync(join(dir, "broken"));
    const wrong = {
      description: "Deliberately wrong: a fresh number is eligible, not 422.",
      steps: [
        {
          request: { method: "POST", path: "/v1/prePing", body: { phone_number: "{{phone}}" } },
          expect: { status: 422, body: { can_post_phone_bit: false, message: [{ error: "Phone number can not be sent to postLead at this time." }] } },
        },
      ],
    };
    writeFileSync(join(dir, "broken/fresh-number-expected-422.json"), JSON.stringify(wrong));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("a wrong expectation is a failure with the difference named", async () => {
    const report = await runReplay(dir, options);
    expect(report).toMatchObject({ passed: 0, failed: 1, skipped: 0 });
    expect(report.results[0]).toMatchObject({ name: "broken/fresh-number-expected-422", outcome: "fail", expected: "422", got: "200" });
    expect(report.results[0]!.problem).toStartWith("step 1 (POST /v1/prePing): status: expected 422, got 200 with ");
  });

  test("the command prints the table and a summary, and exits 1", async () => {
    const lines: string[] = [];
    const code = await replayCommand([dir, "--url", server.url, "--user", VENDOR.user, "--password", VENDOR.password, "--timeout", "5s"], (line) =>
      lines.push(line),
    );
    expect(code).toBe(1);
    expect(lines[0]).toMatch(/^case +\| expected +\| got +\| pass$/);
    expect(lines).toContainEqual(expect.stringMatching(/^broken\/fresh-number-expected-422 \| 422 +\| 200 +\| FAIL$/));
    expect(lines).toContainEqual(expect.stringContaining("↳ step 1 (POST /v1/prePing): status: expected 422, got 200"));
    expect(lines.at(-1)).toMatch(/^FAILED: 0 passed, 1 failed, 0 skipped of 1 case\(s\) in [\d.]+ s$/);
  });

  test("a callback that rejects the lead where the case expected it accepted: the command prints the rejection's reason", async () => {
    const callbackDir = mkdtempSync(join(tmpdir(), "replay-rejected-"));
    try {
      const expectsAccepted = {
        description: "Deliberately wrong: the certificate answers 404, so the lead is rejected, not accepted.",
        receiver: [{ path: "/certificate-missing", status: 404 }],
        steps: [
          {
            request: {
              method: "POST",
              path: "/v1/postLead",
              lead: { certificate_url: "{{receiver}}/certificate-missing", call_back_url: "{{receiver}}/callback" },
            },
            expect: { status: 200, body: { success_bit: true, message: "{{string}}", lead_id: "{{uuid}}" } },
          },
        ],
        callback: {
          expect: {
            body: {
              lead_id: "{{lead_id}}",
              success_bit: true,
              status: "accepted",
              message: "Lead accepted.",
              phone_number: "{{any}}",
              vendor_campaign_name: "replay",
              decided_at: "{{iso-date}}",
            },
          },
        },
      };
      writeFileSync(join(callbackDir, "expected-accepted.json"), JSON.stringify(expectsAccepted));
      const lines: string[] = [];
      const args = [
        callbackDir,
        "--url",
        server.url,
        "--user",
        VENDOR.user,
        "--password",
        VENDOR.password,
        "--receiver",
        receiver.url.origin,
        "--timeout",
        "10s",
      ];
      expect(await replayCommand(args, (line) => lines.push(line))).toBe(1);
      expect(lines).toContainEqual(expect.stringMatching(/^expected-accepted \|.*\| FAIL$/));
      expect(lines).toContainEqual(
        '    ↳ callback.success_bit: expected true, got false; the callback rejected the lead: "Certificate URL could not be verified: HTTP 404"',
      );
    } finally {
      rmSync(callbackDir, { recursive: true, force: true });
    }
  });

  test("cases needing what the run was not given are skipped, and skips do not fail the run", async () => {
    const lines: string[] = [];
    const args = [FIXTURES, "--url", server.url, "--user", VENDOR.user, "--password", VENDOR.password, "--filter", "8-callback/rejected"];
    expect(await replayCommand(args, (line) => lines.push(line))).toBe(0);
    expect(lines).toContainEqual(expect.stringMatching(/^8-callback\/rejected-after-posting-callback \|.*\| SKIP$/));
    expect(lines).toContainEqual(expect.stringContaining("needs --receiver, --with verify-certificates"));
    expect(lines.at(-1)).toStartWith("OK: 0 passed, 0 failed, 1 skipped of 1 case(s)");
  });
});
