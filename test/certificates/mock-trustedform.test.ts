// The client against the mock receiver's TrustedForm endpoint on 127.0.0.1:0: each scenario a tester
// can set comes back as the evidence the real API's answer would give. Light: no service, no database.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { trustedFormVerifier, type TrustedFormLead } from "../../src/certificates/index.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";

const KEY = "mock-key-0123456789";
const LEAD: TrustedFormLead = { phone: "5125550134", email: "jane@example.com", reference: "lead-0001", vendor: "acme" };
const id = (prefix = "") => `${prefix}${crypto.randomUUID().replaceAll("-", "")}`.padEnd(40, "0").slice(0, 40);

let receiver: MockReceiver;
const verify = (certificateId: string, timeoutMs = 2000, lead = LEAD) =>
  trustedFormVerifier({ apiKey: KEY, baseUrl: new URL("/trustedform", receiver.url), timeoutMs })(certificateId, lead);
const control = (method: string, body?: unknown) =>
  fetch(new URL("/_mock/trustedform", receiver.url), { method, body: body === undefined ? undefined : JSON.stringify(body) });

beforeAll(() => {
  receiver = startMockReceiver({ port: 0 });
});
afterEach(async () => {
  await control("DELETE");
});
afterAll(async () => {
  await receiver.stop();
});

describe("scenarios named by the certificate id's prefix", () => {
  test("an id naming no scenario is verified, with the insights asked for", async () => {
    expect(await verify(id())).toMatchObject({
      outcome: "verified",
      phone_match: true,
      email_match: true,
      age_seconds: 42,
      domain: "quotes.example.com",
      page_url: "https://quotes.example.com/quote",
      http_status: 200,
    });
  });

  test.each([
    ["no_phone_match-", { outcome: "not_verified", reason: "the lead's phone does not match the certificate", phone_match: false, email_match: true }],
    ["no_match-", { outcome: "not_verified", reason: "Lead match unsuccessful", phone_match: false, email_match: false }],
    ["expired-", { outcome: "not_verified", reason: "TrustedForm certificate has expired", http_status: 410 }],
    ["unknown-", { outcome: "not_verified", reason: "TrustedForm certificate could not be found", http_status: 404 }],
    ["server_error-", { outcome: "unreachable", problem: "server", http_status: 500 }],
    ["bad_key-", { outcome: "unreachable", problem: "account", reason: "Incorrect API key", http_status: 401 }],
    ["malformed-", { outcome: "unreachable", problem: "unreadable", http_status: 200 }],
  ])("%s…", async (prefix, expected) => {
    expect(await verify(id(prefix))).toMatchObject(expected);
  });

  test("no_phone_match- without an email sent fails TrustedForm's own match: not verified with its reason", async () => {
    expect(await verify(id("no_phone_match-"), 2000, { ...LEAD, email: null })).toMatchObject({
      reason: "Lead match unsuccessful",
      outcome: "not_verified",
      phone_match: false,
      email_match: null,
    });
  });

  test("hang- is unreachable after the client's timeout", async () => {
    expect(await verify(id("hang-"), 150)).toMatchObject({ outcome: "unreachable", problem: "timeout" });
  });
});

describe("behaviours a tester sets", () => {
  test("per certificate over the control API, with insights values, and the default for every other id", async () => {
    const certificate = id();
    const set = await control("PUT", { token: certificate, scenario: "verified", ageSeconds: 9000, domain: "a.example", pageUrl: "https://a.example/x" });
    expect(set.status).toBe(200);
    expect(await verify(certificate)).toMatchObject({ outcome: "verified", age_seconds: 9000, domain: "a.example", page_url: "https://a.example/x" });
    await control("PUT", { scenario: "unknown" });
    expect(await verify(id())).toMatchObject({ outcome: "not_verified", http_status: 404 });
    expect(await verify(certificate)).toMatchObject({ outcome: "verified" });
  });

  test("failFirst: down for the first N requests, then verified (a provider that comes back)", async () => {
    const certificate = id();
    receiver.setCertificate({ token: certificate, scenario: "server_error", failFirst: 2 });
    const outcomes = [];
    for (let i = 0; i < 3; i++) outcomes.push((await verify(certificate)).outcome);
    expect(outcomes).toEqual(["unreachable", "unreachable", "verified"]);
  });

  test("slow answers after its delay: within the timeout verified, past it a timeout", async () => {
    const certificate = id();
    receiver.setCertificate({ token: certificate, scenario: "slow", delayMs: 300 });
    expect(await verify(certificate, 2000)).toMatchObject({ outcome: "verified" });
    expect(await verify(certificate, 100)).toMatchObject({ outcome: "unreachable", problem: "timeout" });
  });

  test("a bad behaviour is refused with 400 and says why", async () => {
    const response = await control("PUT", { token: id(), scenario: "fine" });
    expect(response.status).toBe(400);
    expect(((await response.json()) as { error: string }).error).toContain("scenario must be one of verified");
  });
});

describe("what the mock checks and keeps", () => {
  test("it keeps each request, the key redacted, with the v4 header and the body sent", async () => {
    const certificate = id();
    await verify(certificate);
    const listed = (await (await control("GET")).json()) as { requests: Record<string, unknown>[] };
    expect(listed.requests).toHaveLength(1);
    expect(listed.requests[0]).toMatchObject({ token: certificate, method: "POST", apiVersion: "4.0", authorized: true, scenario: "verified", status: 200 });
    expect(listed.requests[0]!.body).toMatchObject({ match_lead: { phone: "5125550134", email: "jane@example.com" }, retain: { reference: "lead-0001" } });
    expect(JSON.stringify(listed)).not.toContain(KEY);
  });

  test("like the real API it refuses a request without a key (401), without api-version 4.0 (400), and a GET (405)", async () => {
    const url = new URL(`/trustedform/${id()}`, receiver.url);
    const basic = `Basic ${btoa(`API:${KEY}`)}`;
    const body = JSON.stringify({ match_lead: { phone: "5125550134" } });
    expect((await fetch(url, { method: "POST", body, headers: { "api-version": "4.0" } })).status).toBe(401);
    expect((await fetch(url, { method: "POST", body, headers: { authorization: basic } })).status).toBe(400);
    expect((await fetch(url, { headers: { authorization: basic, "api-version": "4.0" } })).status).toBe(405);
  });

  test("retain without a phone or email to match is refused (422): match_lead is required with retain", async () => {
    const response = await fetch(new URL(`/trustedform/${id()}`, receiver.url), {
      method: "POST",
      body: JSON.stringify({ retain: {}, match_lead: {} }),
      headers: { authorization: `Basic ${btoa(`API:${KEY}`)}`, "api-version": "4.0" },
    });
    expect(response.status).toBe(422);
  });

  test("its requests are not callbacks, and callbacks elsewhere are still recorded", async () => {
    receiver.clear();
    await verify(id());
    await fetch(new URL("/cb/x", receiver.url), { method: "POST", body: "{}" });
    expect(receiver.received().map((callback) => callback.path)).toEqual(["/cb/x"]);
  });
});
