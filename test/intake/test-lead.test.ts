// Test mode's pure parts (docs/contract.md §12): which request is a test, its key's hash kept apart
// from a real request's, the callback's "test": true, its metrics label and envelope flag; and, below
// HTTP on an in-memory SQLite store, what a test lead writes: itself marked, held for the test hold,
// no phone claim. (Caps, both databases and the whole life: test/e2e/test-mode.test.ts.)
import { afterEach, expect, test } from "bun:test";
import { callbackPayload } from "../../src/callbacks/payload.ts";
import { flagForPath } from "../../src/http/envelope.ts";
import { submitLead } from "../../src/intake/service.ts";
import { isTestRequest, requestHashOf } from "../../src/intake/test-lead.ts";
import { routeLabel } from "../../src/metrics/index.ts";
import { intakeHarness, type IntakeHarness } from "../helpers/intake.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { tablesOf } from "../helpers/tables.ts";

const request = (headers: Record<string, string> = {}) => new Request("http://localhost/v1/postLead", { method: "POST", headers });

test("a request is a test on a /v1/test/ route, or with X-Test-Lead: true in any case and spacing; any other value is real", () => {
  expect(isTestRequest(request(), true)).toBe(true);
  expect([" true ", "TRUE", "True"].map((value) => isTestRequest(request({ "x-test-lead": value }), false))).toEqual([true, true, true]);
  expect(["false", "1", "yes", ""].map((value) => isTestRequest(request({ "x-test-lead": value }), false))).toEqual([false, false, false, false]);
  expect(isTestRequest(request(), false)).toBe(false);
});

test("a test request's hash differs from the same body's real one, so one Idempotency-Key never answers the other", () => {
  expect(requestHashOf("{}", false)).toBe(Bun.SHA256.hash("{}", "hex"));
  expect(requestHashOf("{}", undefined)).toBe(requestHashOf("{}", false));
  expect(requestHashOf("{}", true)).not.toBe(requestHashOf("{}", false));
  expect(requestHashOf("{}", true)).toBe(requestHashOf("{}", true));
});

test("a test lead's callback carries \"test\": true, last; a real lead's has no test field (SQLite reads the flag as 0 or 1)", () => {
  const lead = { id: "0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69", phoneE164: "+12125550123", vendorCampaignName: "solar" };
  const real = JSON.parse(callbackPayload(lead, { status: "accepted" }, 0));
  expect(real).not.toHaveProperty("test");
  expect(JSON.parse(callbackPayload({ ...lead, test: 0 }, { status: "accepted" }, 0))).toEqual(real);
  for (const test of [true, 1]) {
    const marked = JSON.parse(callbackPayload({ ...lead, test }, { status: "rejected", reasons: ["no"] }, 0));
    expect(Object.entries(marked).at(-1)).toEqual(["test", true]);
    expect(marked).toMatchObject({ success_bit: false, status: "rejected", message: [{ error: "no" }] });
  }
});

test("a test request is labelled with its /v1/test/ route, on either path; the real routes keep their labels", () => {
  expect(["/v1/postLead", "/v1/prePing", "/v1/test/postLead", "/v1/test/prePing"].map((path) => routeLabel(path, true))).toEqual([
    "/v1/test/postLead",
    "/v1/test/prePing",
    "/v1/test/postLead",
    "/v1/test/prePing",
  ]);
  expect(routeLabel("/v1/postLead", false)).toBe("/v1/postLead");
  expect(routeLabel("/v1/leads/0193a5c2-7b1e-7cc0-9a63-3f1d2e4b5a69", true)).toBe("/v1/leads/:lead_id");
});

test("the test prePing's errors carry prePing's flag", () => {
  expect([flagForPath("/v1/test/prePing"), flagForPath("/v1/test/postLead")]).toEqual(["can_post_phone_bit", "success_bit"]);
});

let harness: IntakeHarness | undefined;
afterEach(() => harness?.database.close());

test("a test lead is stored marked, decided after the test hold, and claims no number: a real lead with it is accepted after it", async () => {
  harness = await intakeHarness({ holdPeriodMs: 60_000 });
  const { deps, vendor, database, now } = harness;
  const body = validLead({ phone_number: uniquePhone() });
  const outcome = await submitLead(deps, { vendorId: vendor.id, body, rawBody: JSON.stringify(body), idempotencyKey: null, test: true });
  if (outcome.kind !== "accepted") throw new Error(JSON.stringify(outcome));
  const row = database.sqlite.query("SELECT test, decide_after FROM leads WHERE id = ?").get(outcome.leadId) as { test: number; decide_after: number };
  expect(row).toEqual({ test: 1, decide_after: now.value + deps.testHoldPeriodMs });
  expect(tablesOf(database.db).phoneClaims.holderOf(`+1${String(body.phone_number).replace(/\D/g, "")}`)).toBeNull();
  const real = await harness.accept(body);
  expect(real).not.toBe(outcome.leadId);
});
