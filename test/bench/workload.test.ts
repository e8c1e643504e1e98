// The realistic workload (issue 20): the numbers and bodies the benchmarks send must be what the
// scenario says, judged by the service's own validator, or the figures measure another workload.
import { describe, expect, test } from "bun:test";
import { invalidLead, PHONE_SLOT, prePingTemplate, workloadLeadTemplate } from "../../bench/bodies.ts";
import { e164Phone, formattedPhone } from "../../bench/phones.mjs";
import { CALLBACK_PATHS, createWorkload, EXPECTED_STATUS, RECEIVER_BEHAVIOURS } from "../../bench/workload.mjs";
import { endpointOf } from "../../src/callbacks/endpoints.ts";
import { checkPhoneNumber } from "../../src/intake/phone.ts";
import { validateLead } from "../../src/intake/validate.ts";
import { createBehaviourTable, parseBehaviour } from "../../src/mock-receiver/behaviour.ts";

const SAMPLE = 20_000;
const CALLBACK_BASE = "http://127.0.0.1:9090";
const share = (count: number, of: number) => count / of;

describe("phones.mjs", () => {
  const start = 1_234_567_890;
  const phones = Array.from({ length: SAMPLE }, (_, i) => ({ formatted: formattedPhone(start + i), e164: e164Phone(start + i) }));

  test("every number is valid for the service, and its E.164 form is the one the service stores", () => {
    const wrong = phones.filter(({ formatted, e164 }) => {
      const check = checkPhoneNumber(formatted);
      return !check.ok || check.e164 !== e164;
    });
    expect(wrong).toEqual([]);
  });

  test("consecutive indexes give distinct numbers in random order over the whole space", () => {
    expect(new Set(phones.map((p) => p.e164)).size).toBe(SAMPLE);
    // In random order about half of the neighbours go up; consecutive numbers all do.
    const rising = phones.slice(1).filter((p, i) => p.e164 > phones[i]!.e164).length;
    expect(share(rising, SAMPLE - 1)).toBeGreaterThan(0.47);
    expect(share(rising, SAMPLE - 1)).toBeLessThan(0.53);
    // 358 area codes: 20,000 draws see nearly all of them; a narrow block would see one or two.
    expect(new Set(phones.map((p) => p.e164.slice(2, 5))).size).toBeGreaterThan(340);
  });
});

describe("workload.mjs", () => {
  const shares = { duplicate: 0.1, invalid: 0.05, callbackRetry: 0.2, callbackDead: 0.05, callbackHang: 0.03 };
  const workload = createWorkload({
    template: workloadLeadTemplate,
    slot: PHONE_SLOT,
    invalidBody: invalidLead,
    phoneStart: 77_000_000,
    callbackBase: CALLBACK_BASE,
    shares,
    seed: 42,
  });
  const requests = Array.from({ length: SAMPLE }, () => workload.next());
  const ofKind = (kind: string) => requests.filter((r) => r.kind === kind).map((r) => JSON.parse(r.body) as Record<string, string>);
  const valid = ofKind("valid");

  test("each kind of request is sent in the share the scenario asks for", () => {
    expect(Math.abs(share(ofKind("duplicate").length, SAMPLE) - shares.duplicate)).toBeLessThan(0.01);
    expect(Math.abs(share(ofKind("invalid").length, SAMPLE) - shares.invalid)).toBeLessThan(0.01);
  });

  test("valid leads pass the service's validator, with distinct numbers in random order", () => {
    const refused = valid.filter((lead) => !validateLead(lead, { allowPrivateCallbacks: true }).ok);
    expect(refused).toEqual([]);
    const numbers = valid.map((lead) => checkPhoneNumber(lead.phone_number!)).map((check) => (check.ok ? check.e164 : ""));
    expect(new Set(numbers).size).toBe(valid.length);
    const rising = numbers.slice(1).filter((n, i) => n > numbers[i]!).length;
    expect(Math.abs(share(rising, numbers.length - 1) - 0.5)).toBeLessThan(0.03);
  });

  test("a duplicate repeats an earlier valid lead's number in a body of its own; an invalid lead fails validation", () => {
    const earlier = new Map(valid.map((lead) => [lead.phone_number, JSON.stringify(lead)]));
    for (const duplicate of ofKind("duplicate")) {
      expect(earlier.has(duplicate.phone_number)).toBe(true);
      expect(JSON.stringify(duplicate)).not.toBe(earlier.get(duplicate.phone_number));
      expect(validateLead(duplicate, { allowPrivateCallbacks: true }).ok).toBe(true);
    }
    for (const invalid of ofKind("invalid")) expect(validateLead(invalid, { allowPrivateCallbacks: true }).ok).toBe(false);
    expect(EXPECTED_STATUS).toEqual({ valid: 200, duplicate: 422, invalid: 400 });
  });

  test("callbacks go to the mock receiver, a share to paths that fail once (one per lead), always, or hang", () => {
    const paths = valid
      .map((lead) => new URL(lead.call_back_url!))
      .map((url) => {
        expect(url.origin).toBe(CALLBACK_BASE);
        return url.pathname;
      });
    const retry = paths.filter((p) => p.startsWith(CALLBACK_PATHS.retryPrefix));
    expect(new Set(retry).size).toBe(retry.length);
    expect(Math.abs(share(retry.length, paths.length) - shares.callbackRetry)).toBeLessThan(0.015);
    expect(Math.abs(share(paths.filter((p) => p === CALLBACK_PATHS.dead).length, paths.length) - shares.callbackDead)).toBeLessThan(0.01);
    expect(Math.abs(share(paths.filter((p) => p === CALLBACK_PATHS.hang).length, paths.length) - shares.callbackHang)).toBeLessThan(0.01);
    const named = new Set([CALLBACK_PATHS.ok, CALLBACK_PATHS.dead, CALLBACK_PATHS.hang]);
    expect(paths.filter((p) => !named.has(p) && !retry.includes(p))).toEqual([]);
  });

  test("the paths that fail once share the healthy path's endpoint, so its circuit sees their failures among successes", () => {
    const keyOf = (path: string) => endpointOf("vendor", CALLBACK_BASE + path).key;
    expect(new Set([CALLBACK_PATHS.ok, `${CALLBACK_PATHS.retryPrefix}7`, `${CALLBACK_PATHS.retryPrefix}12345`].map(keyOf)).size).toBe(1);
    expect(keyOf(CALLBACK_PATHS.dead)).not.toBe(keyOf(CALLBACK_PATHS.ok));
    expect(keyOf(CALLBACK_PATHS.hang)).not.toBe(keyOf(CALLBACK_PATHS.ok));
  });

  test("with failing bases, the down and hanging callbacks go to servers of their own (other origins), the rest to the healthy one", () => {
    const failingBases = { dead: "http://127.0.0.1:9101", hang: "http://127.0.0.1:9102" };
    const split = createWorkload({
      template: workloadLeadTemplate,
      slot: PHONE_SLOT,
      invalidBody: invalidLead,
      phoneStart: 0,
      callbackBase: CALLBACK_BASE,
      shares,
      failingBases,
      seed: 42,
    });
    const urls = Array.from({ length: 2_000 }, () => split.next())
      .filter((r) => r.kind !== "invalid")
      .map((r) => new URL(JSON.parse(r.body).call_back_url));
    const originOf = (path: string) => new Set(urls.filter((url) => url.pathname === path).map((url) => url.origin));
    expect([originOf(CALLBACK_PATHS.dead), originOf(CALLBACK_PATHS.hang), originOf(CALLBACK_PATHS.ok)]).toEqual([
      new Set([failingBases.dead]),
      new Set([failingBases.hang]),
      new Set([CALLBACK_BASE]),
    ]);
  });

  test("without shares every request is a valid lead; prePing bodies carry a new valid number each", () => {
    const plain = createWorkload({ template: prePingTemplate, slot: PHONE_SLOT, invalidBody: invalidLead, phoneStart: 0, callbackBase: CALLBACK_BASE });
    const bodies = Array.from({ length: 1_000 }, () => plain.next());
    expect(bodies.every((b) => b.kind === "valid")).toBe(true);
    const numbers = bodies.map((b) => checkPhoneNumber(JSON.parse(b.body).phone_number));
    expect(numbers.every((n) => n.ok)).toBe(true);
    expect(new Set(bodies.map((b) => b.body)).size).toBe(bodies.length);
  });
});

test("the receiver behaviours answer 200 on the healthy path, fail a retry path once, always fail the dead path and hang on the hanging one", () => {
  const table = createBehaviourTable();
  for (const input of RECEIVER_BEHAVIOURS) {
    const { path, behaviour } = parseBehaviour(input);
    table.set(path, behaviour);
  }
  const statuses = (path: string, n: number) =>
    Array.from({ length: n }, () => {
      const answer = table.next(path);
      return answer.action === "respond" ? answer.status : answer.action;
    });
  expect(statuses(CALLBACK_PATHS.ok, 3)).toEqual([200, 200, 200]);
  expect(statuses(`${CALLBACK_PATHS.retryPrefix}7`, 3)).toEqual([503, 200, 200]);
  expect(statuses(`${CALLBACK_PATHS.retryPrefix}8`, 2)).toEqual([503, 200]);
  expect(statuses(CALLBACK_PATHS.dead, 3)).toEqual([503, 503, 503]);
  expect(statuses(CALLBACK_PATHS.hang, 2)).toEqual(["hang", "hang"]);
});
