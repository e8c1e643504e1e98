// The mock receiver's check service (src/mock-receiver/checks.ts): answers a tester sets per phone
// number (and optionally per check), parsed strictly, and the answer each gives.
import { expect, test } from "bun:test";
import { BehaviourError } from "../../src/mock-receiver/behaviour.ts";
import { createCheckTable, isCheckPath, parseCheckPlay, phoneKey, planCheckAnswer } from "../../src/mock-receiver/checks.ts";

const request = (phone: string, check = "scrub") => ({ check, vendor: "acme", campaign: "x", fields: { phone_number: phone } });

test("check requests are POSTs to /check or a path under it", () => {
  expect(isCheckPath("/check")).toBe(true);
  expect(isCheckPath("/check/litigator")).toBe(true);
  expect(isCheckPath("/checks")).toBe(false);
  expect(isCheckPath("/cb/check")).toBe(false);
});

test("phone numbers are compared by their digits, a leading US 1 ignored", () => {
  expect(phoneKey("+1 (212) 555-0123")).toBe("2125550123");
  expect(phoneKey("2125550123")).toBe("2125550123");
  expect(phoneKey("+12125550123")).toBe("2125550123");
});

test("each answer a tester can set: pass, fail with a reason, a status, slow, hang, a raw body", () => {
  expect(planCheckAnswer(undefined)).toEqual({ action: "respond", status: 200, delayMs: 0, body: '{"outcome":"pass","reason":"Passed by the mock check"}' });
  expect(planCheckAnswer({ outcome: "fail", reason: "Known litigator" })).toEqual({
    action: "respond",
    status: 200,
    delayMs: 0,
    body: '{"outcome":"fail","reason":"Known litigator"}',
  });
  expect(planCheckAnswer({ status: 500 })).toEqual({ action: "respond", status: 500, delayMs: 0, body: undefined });
  expect(planCheckAnswer({ delayMs: 2000 })).toMatchObject({ action: "respond", status: 200, delayMs: 2000 });
  expect(planCheckAnswer({ hang: true })).toEqual({ action: "hang" });
  expect(planCheckAnswer({ body: "<html>" })).toMatchObject({ status: 200, body: "<html>" });
});

test("a set answer is parsed strictly: unknown fields, a bad outcome or status, a phone without digits are refused", () => {
  expect(parseCheckPlay({ phone: "+1 212 555 0123", check: "scrub", outcome: "fail", reason: "no" })).toEqual({
    phone: "2125550123",
    check: "scrub",
    play: { outcome: "fail", reason: "no" },
  });
  expect(parseCheckPlay({})).toEqual({ phone: undefined, check: undefined, play: {} });
  for (const bad of [{ outcom: "pass" }, { outcome: "maybe" }, { status: 99 }, { delayMs: -1 }, { hang: "yes" }, { phone: "abc" }, { reason: 5 }, [], null])
    expect(() => parseCheckPlay(bad)).toThrow(BehaviourError);
});

test("the answer is found by phone and check, then phone, then check, then the default; resetting a phone forgets its answers", () => {
  const table = createCheckTable();
  table.set(undefined, undefined, { outcome: "fail", reason: "default" });
  table.set(undefined, "dnc", { outcome: "fail", reason: "dnc default" });
  table.set("2125550123", undefined, { outcome: "pass", reason: "this phone" });
  table.set("2125550123", "dnc", { status: 500 });
  expect(table.next(request("+12125550123"))).toMatchObject({ body: '{"outcome":"pass","reason":"this phone"}' });
  expect(table.next(request("+12125550123", "dnc"))).toMatchObject({ status: 500 });
  expect(table.next(request("+12125550199", "dnc"))).toMatchObject({ body: '{"outcome":"fail","reason":"dnc default"}' });
  expect(table.next(request("+12125550199"))).toMatchObject({ body: '{"outcome":"fail","reason":"default"}' });
  expect(table.next("not an object")).toMatchObject({ body: '{"outcome":"fail","reason":"default"}' });
  table.reset("+1 212 555 0123");
  expect(table.describe().map((entry) => entry.phone)).toEqual([null, null]);
  table.reset();
  expect(table.next(request("+12125550123"))).toMatchObject({ body: '{"outcome":"pass","reason":"Passed by the mock check"}' });
});
