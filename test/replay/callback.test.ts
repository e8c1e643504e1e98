// Judging a replayed case's callback: a rejection the case did not expect is reported with its reasons.
import { describe, expect, test } from "bun:test";
import type { RecordedCallback } from "../../src/mock-receiver/index.ts";
import { checkCallbacks } from "../../src/replay/callback.ts";
import type { CallbackExpectation } from "../../src/replay/fixture.ts";

const ACCEPTED = { lead_id: "L1", success_bit: true, status: "accepted", message: "Lead accepted." };
const rejected = (...errors: string[]) => ({ lead_id: "L1", success_bit: false, status: "rejected", message: errors.map((error) => ({ error })) });

function delivery(json: Record<string, unknown>): RecordedCallback {
  const body = JSON.stringify(json);
  return {
    seq: 1,
    method: "POST",
    path: "/callback",
    query: "",
    headers: { "webhook-id": "msg_1" },
    body,
    json,
    receivedAt: new Date(0).toISOString(),
    attempt: 1,
    signature: null,
    answer: { action: "respond", status: 200, delayMs: 0 },
  };
}

const expecting = (body: CallbackExpectation["body"]): CallbackExpectation => ({ path: "/callback", body, attempts: 1 });

describe("checkCallbacks", () => {
  test("expected accepted, got rejected: the first difference and the rejection's reasons", () => {
    expect(checkCallbacks(expecting(ACCEPTED), [delivery(rejected("Certificate URL could not be verified: HTTP 404", "second"))])).toBe(
      'callback.success_bit: expected true, got false; the callback rejected the lead: "Certificate URL could not be verified: HTTP 404", "second"',
    );
  });

  test("expected one rejection reason, got another: both are in the report", () => {
    const problem = checkCallbacks(expecting(rejected("Phone number is suppressed")), [delivery(rejected("Certificate URL could not be verified: HTTP 404"))]);
    expect(problem).toStartWith('callback.message[0].error: expected "Phone number is suppressed", got "Certificate URL could not be verified: HTTP 404"');
    expect(problem).toEndWith('; the callback rejected the lead: "Certificate URL could not be verified: HTTP 404"');
  });

  test("the expected rejection with another difference: no reasons added (they are the expected ones)", () => {
    const want = { ...rejected("Certificate URL could not be verified: HTTP 404"), lead_id: "L2" };
    expect(checkCallbacks(expecting(want), [delivery(rejected("Certificate URL could not be verified: HTTP 404"))])).toBe(
      'callback.lead_id: expected "L2", got "L1"',
    );
  });

  test("a matching callback passes; an accepted one that differs says nothing of rejection", () => {
    expect(checkCallbacks(expecting(ACCEPTED), [delivery(ACCEPTED)])).toBeNull();
    expect(checkCallbacks(expecting({ ...ACCEPTED, lead_id: "L2" }), [delivery(ACCEPTED)])).toBe('callback.lead_id: expected "L2", got "L1"');
  });
});
