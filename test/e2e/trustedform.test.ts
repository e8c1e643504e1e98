// TrustedForm certificates verified during the hold (docs/contract.md §11, docs/certificates.md):
// the real server with its worker, the mock receiver playing TrustedForm and receiving the
// callbacks, on 127.0.0.1 ephemeral ports; on SQLite, or on PostgreSQL with
// LEAD_INGRESS_TEST_BACKEND=postgres. The evidence is stored with the lead, shown on the console's
// lead page and in `leads show`, and judged when the lead is decided: verified goes on to the final
// rules (one on certificate.age_seconds here), not verified rejects with the provider's reason, a
// provider down through the hold leaves it to --trustedform-unreachable (a server per setting).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Config } from "../../src/config/index.ts";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { addOperator, signIn } from "../console/console-client.ts";
import { prePing } from "../helpers/api.ts";
import { cli, run } from "../helpers/cli.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { get, post, startApiTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";

// Long enough for TrustedForm failing twice to be asked a third time (0.5 s, then 1 s later); short enough for the suite.
const HOLD_MS = 2_500;
// Each test waits out a hold, so most run concurrently (bun's test.concurrent) and wait together: each
// has its own certificate, phone and callback path, and asserts only about those. (Those with a
// TrustedForm that hangs fill a flight of one on servers of their own: one after the other.)
// The accepting server's: none of its leads needs TrustedForm asked again, and the fixtures' replay
// against it waits out one hold after another.
const SHORT_HOLD_MS = 1_500;
const KEY = "tf-test-key-0123456789";
const AGE_RULE = {
  name: "fresh-consent",
  stage: "final",
  campaigns: ["consent-age"],
  require: { field: "certificate.age_seconds", op: "less_than", value: 3600 },
  reason: "Consent too old: {certificate.age_seconds}",
};
const POLICY = { rules: [{ name: "probe", campaigns: ["probe"], require: { field: "campaign", op: "equals", value: "never" }, reason: "probe" }, AGE_RULE] };

let receiver: MockReceiver;
let rejecting: ApiTestServer;
let accepting: ApiTestServer;
let paths = 0;

async function startServer(onUnreachable: "reject" | "accept", consolePort?: number, overrides: Partial<Config> = {}): Promise<ApiTestServer> {
  return startApiTestServer({
    holdPeriodMs: HOLD_MS,
    workerPollIntervalMs: 20,
    policyReloadMs: 100, // the policy imported below applies within 100 ms, not a second
    allowPrivateCallbacks: true,
    trustedFormApiKey: KEY,
    trustedFormBaseUrl: new URL("/trustedform", receiver.url).href,
    trustedFormUnreachable: onUnreachable,
    certificateTimeoutMs: 1_000,
    consolePort,
    ...overrides,
  });
}

beforeAll(async () => {
  receiver = startMockReceiver({ port: 0 });
  [rejecting, accepting] = await Promise.all([startServer("reject", 0), startServer("accept", undefined, { holdPeriodMs: SHORT_HOLD_MS })]);
  expect((await importPolicy(rejecting.store, JSON.stringify(POLICY), "cli:test")).kind).toBe("imported");
  const started = Date.now();
  while ((await prePing(rejecting, rejecting.auth, { phone_number: uniquePhone(), vendor_campaign_name: "probe" })).status !== 422) {
    if (Date.now() - started > 5_000) throw new Error("the service did not apply the imported policy within 5 s");
    await Bun.sleep(25);
  }
});
afterAll(async () => {
  await Promise.all([rejecting?.stop(), accepting?.stop()]);
  await receiver.stop();
});

/** A certificate id (40 characters), its prefix naming the mock's scenario when given. */
const certificateId = (prefix = "") => `${prefix}${crypto.randomUUID().replaceAll("-", "")}`.padEnd(40, "0").slice(0, 40);

/** Posts a lead with this certificate and a callback of its own; answers its id and the callback's path. */
async function submit(server: ApiTestServer, certificate: string, campaign = "spring"): Promise<{ leadId: string; path: string }> {
  const path = `/tf/${++paths}`;
  const body = validLead({
    certificate_url: `https://cert.trustedform.com/${certificate}`,
    vendor_campaign_name: campaign,
    call_back_url: `${receiver.url.origin}${path}`,
  });
  const answer = await post(`${server.url}/v1/postLead`, body, { authorization: server.auth });
  expect(answer.status).toBe(200);
  return { leadId: answer.body.lead_id, path };
}

const callbackFor = async (path: string) => (await receiver.waitFor(1, { path, timeoutMs: 15_000 }))[0]!.json as Record<string, unknown>;
const rejectedWith = (reason: string) => ({ status: "rejected", success_bit: false, message: [{ error: reason }] });
const evidenceOf = async (server: ApiTestServer, leadId: string) => (await server.store.read((t) => op(t.findings.of([leadId]))))[0];

describe("a verified certificate", () => {
  test.concurrent("is accepted, its evidence stored with the lead, shown on the console's lead page and in leads show", async () => {
    const certificate = certificateId();
    const { leadId, path } = await submit(rejecting, certificate);
    expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, status: "accepted" });
    const evidence = await evidenceOf(rejecting, leadId);
    expect(evidence).toMatchObject({ kind: "certificate", name: "trustedform", outcome: "verified", reason: null, attempts: 1 });
    expect(JSON.parse(evidence!.detail!)).toMatchObject({
      phone_match: true,
      email_match: true,
      age_seconds: 42,
      domain: "quotes.example.com",
      page_url: "https://quotes.example.com/quote",
      http_status: 200,
    });
    expect(evidence!.raw).toContain('"outcome":"success"');
    // The request carried the lead's phone (ten digits) and email, our lead id as the retain reference, and the key in its header only.
    const asked = receiver.certificateRequests().filter((request) => request.token === certificate);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ authorized: true, apiVersion: "4.0", body: { retain: { reference: leadId, vendor: VENDOR.name } } });

    await addOperator(rejecting.store);
    const operator = await signIn(rejecting.consoleUrl!);
    const page = await operator.get(`/leads/${leadId}`);
    expect(page.text).toContain("<h2>Consent certificate</h2>");
    expect(page.text).toContain('<tr><th>outcome</th><td class="mono">verified</td></tr>');
    expect(page.text).toContain("quotes.example.com");
    expect(page.text).not.toContain(KEY);

    const shown = await cli(rejecting.config.databasePath, "leads", "show", leadId);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/Consent certificate\n\s+provider\s+TrustedForm\n\s+outcome\s+verified\n/);
    expect(shown.out).toMatch(/age\s+42 s/);
    expect(shown.out).not.toContain(KEY);
    const json = JSON.parse((await cli(rejecting.config.databasePath, "leads", "show", leadId, "--json")).out);
    expect(json.certificate).toMatchObject({ outcome: "verified", phone_match: true, age_seconds: 42, attempts: 1, accepted_unverified: false });

    const metrics = await (await fetch(`${rejecting.url}/metrics`)).text();
    expect(metrics).toMatch(/^lead_ingress_certificate_verifications_total\{provider="trustedform",outcome="verified"\} [1-9]\d*$/m);
    expect(metrics).toMatch(/^lead_ingress_certificate_verification_duration_seconds_count\{provider="trustedform"\} [1-9]\d*$/m);
  }, 30_000);
});

describe("a certificate TrustedForm does not verify rejects the lead with the provider's reason", () => {
  test.concurrent.each([
    ["no phone match", "no_phone_match-", "the lead's phone does not match the certificate"],
    ["expired (410)", "expired-", "TrustedForm certificate has expired"],
    ["unknown (404)", "unknown-", "TrustedForm certificate could not be found"],
  ])("%s", async (_name, prefix, reason) => {
    const { leadId, path } = await submit(rejecting, certificateId(prefix));
    expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, ...rejectedWith(`Certificate could not be verified: ${reason}`) });
    expect(await evidenceOf(rejecting, leadId)).toMatchObject({ outcome: "not_verified", reason, attempts: 1 });
    expect((await get(`${rejecting.url}/v1/leads/${leadId}`, { authorization: rejecting.auth })).body).toMatchObject(
      rejectedWith(`Certificate could not be verified: ${reason}`),
    );
  });
});

test.concurrent("TrustedForm down during the hold, then back: asked again until it answers, and the lead decided by that answer", async () => {
  const certificate = certificateId();
  receiver.setCertificate({ token: certificate, scenario: "server_error", failFirst: 2 });
  const { leadId, path } = await submit(rejecting, certificate);
  expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, status: "accepted" });
  expect(await evidenceOf(rejecting, leadId)).toMatchObject({ outcome: "verified", attempts: 3 });
  expect(
    receiver
      .certificateRequests()
      .filter((request) => request.token === certificate)
      .map((request) => request.status),
  ).toEqual([500, 500, 200]);
});

describe("TrustedForm down past the decision: --trustedform-unreachable decides", () => {
  test.concurrent("reject: the lead is rejected, saying TrustedForm could not be reached", async () => {
    const certificate = certificateId();
    receiver.setCertificate({ token: certificate, scenario: "server_error" });
    const { leadId, path } = await submit(rejecting, certificate);
    expect(await callbackFor(path)).toMatchObject(
      rejectedWith("Certificate could not be verified: TrustedForm could not be reached before the decision was due"),
    );
    const evidence = await evidenceOf(rejecting, leadId);
    expect(evidence).toMatchObject({ outcome: "unreachable", reason: "TrustedForm answered HTTP 500" });
    expect(evidence!.attempts).toBeGreaterThanOrEqual(2);
  });

  test.concurrent("accept: the lead is accepted, its evidence marked unverified", async () => {
    const certificate = certificateId();
    receiver.setCertificate({ token: certificate, scenario: "server_error" });
    const { leadId, path } = await submit(accepting, certificate);
    expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, status: "accepted" });
    expect(await evidenceOf(accepting, leadId)).toMatchObject({ outcome: "unreachable" });
    const json = JSON.parse((await cli(accepting.config.databasePath, "leads", "show", leadId, "--json")).out);
    expect(json.certificate).toMatchObject({ outcome: "unreachable", accepted_unverified: true, reason: "TrustedForm answered HTTP 500" });
  }, 30_000);
});

describe("TrustedForm hanging: a lead decided before it was ever asked about is marked, by the decision, with the lead", () => {
  // A flight of one request (--trustedform-concurrency 1), filled by a hanging request for its
  // timeout, longer than the hold: a lead posted meanwhile is never claimed before its decision (in
  // production, leads coming faster than TrustedForm is asked). Its decision records "not_asked".
  const SLOW = { holdPeriodMs: 1_000, certificateTimeoutMs: 6_000, trustedFormConcurrency: 1 };
  let slowRejecting: ApiTestServer;
  let slowAccepting: ApiTestServer;
  beforeAll(async () => {
    [slowRejecting, slowAccepting] = await Promise.all([startServer("reject", undefined, SLOW), startServer("accept", 0, SLOW)]);
  });
  afterAll(() => Promise.all([slowRejecting?.stop(), slowAccepting?.stop()]));

  /** Posts a lead whose certificate hangs and waits until the certificate loop has claimed it (its request then fills the flight). */
  async function holdTheLoop(server: ApiTestServer): Promise<{ leadId: string; path: string }> {
    const certificate = certificateId();
    receiver.setCertificate({ token: certificate, scenario: "hang" });
    const posted = await submit(server, certificate);
    const started = Date.now();
    while ((await evidenceOf(server, posted.leadId))?.outcome !== "pending") {
      if (Date.now() - started > 5_000) throw new Error("the hanging certificate was not claimed within 5 s");
      await Bun.sleep(10);
    }
    return posted;
  }

  test("accept: accepted, and shown as accepted unverified in leads show and on the console's lead page", async () => {
    const hanging = await holdTheLoop(slowAccepting);
    const { leadId, path } = await submit(slowAccepting, certificateId());
    expect(await callbackFor(path)).toMatchObject({ lead_id: leadId, status: "accepted" });
    expect(await evidenceOf(slowAccepting, leadId)).toMatchObject({
      outcome: "not_asked",
      reason: "TrustedForm was not asked before the decision was due",
      attempts: 0,
    });
    const shown = await cli(slowAccepting.config.databasePath, "leads", "show", leadId);
    expect(shown.code).toBe(0);
    expect(shown.out).toMatch(/Consent certificate\n\s+provider\s+TrustedForm\n\s+outcome\s+not_asked: accepted unverified\n/);
    expect(shown.out).toMatch(/first asked\s+-\n/);
    const json = JSON.parse((await cli(slowAccepting.config.databasePath, "leads", "show", leadId, "--json")).out);
    expect(json.certificate).toMatchObject({ outcome: "not_asked", accepted_unverified: true, attempts: 0, first_asked_at: null });

    await addOperator(slowAccepting.store);
    const operator = await signIn(slowAccepting.consoleUrl!);
    const page = await operator.get(`/leads/${leadId}`);
    expect(page.text).toContain('<tr><th>outcome</th><td class="mono">not_asked: accepted unverified</td></tr>');

    // The lead whose request hung was asked (its claim is its finding): decided as the setting says, its finding kept as it was.
    expect(await callbackFor(hanging.path)).toMatchObject({ lead_id: hanging.leadId, status: "accepted" });
    expect(await evidenceOf(slowAccepting, hanging.leadId)).toMatchObject({ outcome: "pending", attempts: 1 });
    const hangingShown = await cli(slowAccepting.config.databasePath, "leads", "show", hanging.leadId);
    expect(hangingShown.out).toMatch(/outcome\s+pending: accepted unverified\n/);
  }, 30_000);

  test("reject: rejected, saying TrustedForm could not be reached, and marked not asked", async () => {
    await holdTheLoop(slowRejecting);
    const { leadId, path } = await submit(slowRejecting, certificateId());
    expect(await callbackFor(path)).toMatchObject(
      rejectedWith("Certificate could not be verified: TrustedForm could not be reached before the decision was due"),
    );
    expect(await evidenceOf(slowRejecting, leadId)).toMatchObject({ outcome: "not_asked", attempts: 0 });
    const shown = await cli(slowRejecting.config.databasePath, "leads", "show", leadId);
    expect(shown.out).toMatch(/outcome\s+not_asked\n/);
  }, 30_000);
});

describe("a final rule on certificate.age_seconds", () => {
  test.concurrent("rejects a lead whose consent is older than it allows, with the rule's reason", async () => {
    const certificate = certificateId();
    receiver.setCertificate({ token: certificate, scenario: "verified", ageSeconds: 7200 });
    const { path } = await submit(rejecting, certificate, "consent-age");
    expect(await callbackFor(path)).toMatchObject(rejectedWith("Consent too old: 7200"));
  });

  test.concurrent("accepts one within it", async () => {
    const { path } = await submit(rejecting, certificateId(), "consent-age");
    expect(await callbackFor(path)).toMatchObject({ status: "accepted" });
  });
});

test.concurrent("fixtures/11-certificates replay against the service with the mock playing TrustedForm", async () => {
  const args = ["fixtures/11-certificates/", "--url", accepting.url, "--user", VENDOR.name, "--password", VENDOR.password];
  const { code, out } = await run(["replay", ...args, "--receiver", receiver.url.origin, "--with", "trustedform"]);
  expect(out).not.toContain("FAIL");
  expect(out).not.toContain("SKIP");
  expect(out).toContain("OK: 4 passed, 0 failed, 0 skipped");
  expect(code).toBe(0);
}, 60_000);
