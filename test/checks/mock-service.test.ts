// The check runner against the mock receiver's check endpoint on 127.0.0.1:0 (no service, no
// database): each answer a tester sets per phone arrives as it should, and the mock verifies the
// request's signature with the checks secret using the reference `standardwebhooks` package.
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import { createCheckRunner } from "../../src/checks/index.ts";
import { type MockReceiver, startMockReceiver } from "../../src/mock-receiver/index.ts";
import { check, lead, SECRET } from "./fixtures.ts";

const VENDOR_SECRET = "whsec_c2VjcmV0LW9mLWFub3RoZXItdmVuZG9yLTEyMzQ1Ng==";
let receiver: MockReceiver;
let url: string;

beforeAll(() => {
  receiver = startMockReceiver({ port: 0, secret: VENDOR_SECRET, checkSecret: SECRET });
  url = new URL("/check/scrub", receiver.url).href;
});
afterAll(() => receiver.stop());
beforeEach(() => {
  receiver.clear();
  receiver.resetCheckAnswers();
});

const run = (phone: string, timeoutMs = 300) =>
  createCheckRunner({ secret: () => SECRET, clock: Date.now, allowPrivate: true })
    .run([check({ url, timeout_ms: timeoutMs })], lead(phone))
    .then(([result]) => result?.answer);

test("answers set per phone: pass, fail with its reason, 500, slow past the timeout, hang", async () => {
  receiver.setCheckAnswer({ phone: "+12125550101", outcome: "fail", reason: "Known litigator" });
  receiver.setCheckAnswer({ phone: "2125550102", status: 500 });
  receiver.setCheckAnswer({ phone: "2125550103", delayMs: 2_000 });
  receiver.setCheckAnswer({ phone: "2125550104", hang: true });
  receiver.setCheckAnswer({ phone: "2125550105", body: "not json" });
  expect(await run("+12125550100")).toEqual({ outcome: "pass", reason: "Passed by the mock check" });
  expect(await run("+12125550101")).toEqual({ outcome: "fail", reason: "Known litigator" });
  expect(await run("+12125550102")).toEqual({ outcome: "error", error: "HTTP 500" });
  expect(await run("+12125550103", 100)).toEqual({ outcome: "error", error: "timed out after 100 ms" });
  expect(await run("+12125550104", 100)).toEqual({ outcome: "error", error: "timed out after 100 ms" });
  expect(await run("+12125550105")).toEqual({ outcome: "error", error: "answer is not JSON" });
});

test("the mock records the request with its body, and finds its signature valid with the checks secret", async () => {
  await run("+12125550100");
  const [recorded] = receiver.received("/check/scrub");
  expect(recorded?.json).toEqual({ check: "scrub", vendor: "acme", campaign: "Solar-Q4", fields: { phone_number: "+12125550100", state: "NY" } });
  expect(recorded?.headers["webhook-id"]).toMatch(/^chk_/);
  expect(recorded?.signature).toEqual({ valid: true });
});

test("answers can be set over the control API, as a tester does with curl", async () => {
  const put = await fetch(new URL("/_mock/checks", receiver.url), {
    method: "PUT",
    body: JSON.stringify({ phone: "(212) 555-0106", outcome: "fail", reason: "On the do-not-call list" }),
  });
  expect(put.status).toBe(200);
  expect(await run("+12125550106")).toEqual({ outcome: "fail", reason: "On the do-not-call list" });
  const listed = await (await fetch(new URL("/_mock/checks", receiver.url))).json();
  expect(listed).toEqual([{ phone: "2125550106", check: null, answer: { outcome: "fail", reason: "On the do-not-call list" } }]);
  expect((await fetch(new URL("/_mock/checks", receiver.url), { method: "PUT", body: '{"outcome":"perhaps"}' })).status).toBe(400);
  expect((await fetch(new URL("/_mock/checks?phone=2125550106", receiver.url), { method: "DELETE" })).status).toBe(200);
  expect(await run("+12125550106")).toEqual({ outcome: "pass", reason: "Passed by the mock check" });
});

test("without its own checks secret the mock verifies check requests with the vendor's; /_mock/check-secret sets it", async () => {
  const control = (method: string, body?: unknown) =>
    fetch(new URL("/_mock/check-secret", receiver.url), { method, body: body === undefined ? undefined : JSON.stringify(body) });
  expect((await control("DELETE")).status).toBe(200);
  await run("+12125550100");
  expect(receiver.received("/check/scrub")[0]?.signature?.valid).toBe(false);
  expect((await control("PUT", { secret: SECRET })).status).toBe(200);
  await run("+12125550100");
  expect(receiver.received("/check/scrub")[1]?.signature).toEqual({ valid: true });
  expect((await control("PUT", { secret: "nope" })).status).toBe(400);
});
