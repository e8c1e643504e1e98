import { describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { Webhook } from "standardwebhooks";
import pkg from "../../package.json" with { type: "json" };
import { callbackHeaders, newSigningSecret, signCallback, USER_AGENT } from "../../src/callbacks/signature.ts";

// The example of the Standard Webhooks specification.
const SPEC_SECRET = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw";
const SPEC_ID = "msg_p5jXN8AQM9LWM0D4loKWxJek";
const SPEC_TIMESTAMP = 1614265330;
const SPEC_BODY = '{"test": 2432232314}';
const SPEC_SIGNATURE = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=";

const body = JSON.stringify({
  lead_id: "01J9Z3V3W8Q6X2N5K7M4R1T0AB",
  success_bit: false,
  status: "rejected",
  message: [{ error: "Phone number is on the suppression list." }],
  phone_number: "+12125550123",
  vendor_campaign_name: "Spring – ünïcødé",
  decided_at: "2025-01-01T00:00:00.000Z",
});

const now = () => Math.floor(Date.now() / 1000);

describe("signCallback", () => {
  test("reproduces the specification's example", () => {
    expect(signCallback({ id: SPEC_ID, timestamp: SPEC_TIMESTAMP, body: SPEC_BODY, secret: SPEC_SECRET })).toBe(SPEC_SIGNATURE);
  });

  test("agrees with the reference implementation's sign", () => {
    const secret = newSigningSecret();
    const timestamp = now();
    expect(signCallback({ id: "msg_1", timestamp, body, secret })).toBe(new Webhook(secret).sign("msg_1", new Date(timestamp * 1000), body));
  });

  test("is HMAC-SHA256 of id.timestamp.body keyed with the decoded secret", () => {
    const secret = newSigningSecret();
    const key = Buffer.from(secret.slice("whsec_".length), "base64");
    const expected = createHmac("sha256", key).update(`msg_2.1700000000.${body}`).digest("base64");
    expect(signCallback({ id: "msg_2", timestamp: 1700000000, body, secret })).toBe(`v1,${expected}`);
  });

  test("refuses a malformed secret or timestamp", () => {
    expect(() => signCallback({ id: "m", timestamp: 1, body, secret: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" })).toThrow(/whsec_/);
    expect(() => signCallback({ id: "m", timestamp: 1, body, secret: "whsec_" })).toThrow(/whsec_/);
    expect(() => signCallback({ id: "m", timestamp: 1, body, secret: "whsec_not base64!" })).toThrow(/whsec_/);
    expect(() => signCallback({ id: "m", timestamp: 1.5, body, secret: SPEC_SECRET })).toThrow(RangeError);
    expect(() => signCallback({ id: "m", timestamp: Date.now(), body, secret: SPEC_SECRET })).toThrow(RangeError); // milliseconds
  });
});

describe("newSigningSecret", () => {
  test("is whsec_ and 32 random bytes", () => {
    const a = newSigningSecret();
    expect(a).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(a.slice(6), "base64")).toHaveLength(32);
    expect(newSigningSecret()).not.toBe(a);
  });
});

describe("callbackHeaders", () => {
  test("carries the contract's headers", () => {
    const headers = callbackHeaders({ id: SPEC_ID, timestamp: SPEC_TIMESTAMP, body: SPEC_BODY, secret: SPEC_SECRET });
    expect(headers).toEqual({
      "content-type": "application/json",
      "user-agent": `lead-ingress/${pkg.version}`,
      "webhook-id": SPEC_ID,
      "webhook-timestamp": "1614265330",
      "webhook-signature": SPEC_SIGNATURE,
    });
    expect(USER_AGENT).toBe(`lead-ingress/${pkg.version}`);
  });

  test("verify with the reference implementation, as a vendor would", () => {
    const secret = newSigningSecret();
    const headers = callbackHeaders({ id: "msg_3", timestamp: now(), body, secret });
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  test("a tampered body, id, timestamp or a wrong secret fails verification", () => {
    const secret = newSigningSecret();
    // Captured once: read again past a second boundary, now() - 1 would be this very timestamp.
    const timestamp = now();
    const headers = callbackHeaders({ id: "msg_4", timestamp, body, secret });
    const webhook = new Webhook(secret);
    expect(() => webhook.verify(body.replace("rejected", "accepted"), headers)).toThrow("No matching signature found");
    expect(() => webhook.verify(`${body} `, headers)).toThrow("No matching signature found");
    expect(() => webhook.verify(body, { ...headers, "webhook-id": "msg_5" })).toThrow("No matching signature found");
    expect(() => webhook.verify(body, { ...headers, "webhook-timestamp": String(timestamp - 1) })).toThrow("No matching signature found");
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow("No matching signature found");
  });

  test("the same id keeps verifying on a retry with a new timestamp", () => {
    const secret = newSigningSecret();
    const first = callbackHeaders({ id: "msg_6", timestamp: now() - 60, body, secret });
    const retry = callbackHeaders({ id: "msg_6", timestamp: now(), body, secret });
    expect(retry["webhook-id"]).toBe(first["webhook-id"]);
    expect(retry["webhook-signature"]).not.toBe(first["webhook-signature"]);
    expect(() => new Webhook(secret).verify(body, first)).not.toThrow();
    expect(() => new Webhook(secret).verify(body, retry)).not.toThrow();
  });

  test("with several secrets (a rotation's overlap): one v1 value each, space-separated, in their order; each verifies alone", () => {
    const [newer, older] = [newSigningSecret(), newSigningSecret()];
    const timestamp = now();
    const headers = callbackHeaders({ id: "msg_7", timestamp, body, secret: [newer, older] });
    const values = headers["webhook-signature"]!.split(" ");
    expect(values).toEqual([signCallback({ id: "msg_7", timestamp, body, secret: newer }), signCallback({ id: "msg_7", timestamp, body, secret: older })]);
    for (const secret of [newer, older]) expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    const only = (value: string) => ({ ...headers, "webhook-signature": value });
    expect(() => new Webhook(newer).verify(body, only(values[0]!))).not.toThrow();
    expect(() => new Webhook(older).verify(body, only(values[0]!))).toThrow("No matching signature found");
    expect(() => new Webhook(older).verify(body, only(values[1]!))).not.toThrow();
    expect(() => new Webhook(newSigningSecret()).verify(body, headers)).toThrow("No matching signature found");
  });

  test("one secret in a list signs as the secret alone", () => {
    const secret = newSigningSecret();
    const message = { id: "msg_8", timestamp: now(), body };
    expect(callbackHeaders({ ...message, secret: [secret] })).toEqual(callbackHeaders({ ...message, secret }));
  });
});
