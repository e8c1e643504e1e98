// A policy `checks` entry compiled for running (src/checks/entry.ts): defaults, cache durations,
// scope as the policy's other entries, and which checks a lead's stage and scope select.
import { expect, test } from "bun:test";
import { checksInScope, compileChecks, DEFAULT_TIMEOUT_MS } from "../../src/checks/index.ts";
import { checkPolicyDocument } from "../../src/policy/index.ts";
import { check } from "./fixtures.ts";

test("an entry without options gets the defaults: intake, the default timeout, no cache, on_error accept, nothing sent", () => {
  const compiled = check({ send: undefined });
  expect(compiled).toMatchObject({ name: "scrub", stage: "intake", timeoutMs: DEFAULT_TIMEOUT_MS, cacheMs: 0, onError: "accept", send: [] });
  expect(compiled.vendors).toBeNull();
  expect(compiled.campaigns).toBeNull();
});

test("cache durations are read in seconds, minutes, hours and days", () => {
  expect(check({ cache: "30s" }).cacheMs).toBe(30_000);
  expect(check({ cache: "5m" }).cacheMs).toBe(300_000);
  expect(check({ cache: "2h" }).cacheMs).toBe(7_200_000);
  expect(check({ cache: "7d" }).cacheMs).toBe(7 * 86_400_000);
});

test("the options given are kept: stage, timeout, on_error", () => {
  expect(check({ stage: "final", timeout_ms: 800, on_error: "reject" })).toMatchObject({ stage: "final", timeoutMs: 800, onError: "reject" });
});

test("a cached answer's key changes with the check's URL or fields, so a redefined check does not reuse old answers", () => {
  const base = check().cacheKey;
  expect(check().cacheKey).toBe(base);
  expect(check({ url: "https://93.184.216.35/check" }).cacheKey).not.toBe(base);
  expect(check({ send: ["phone_number"] }).cacheKey).not.toBe(base);
  expect(check({ name: "other" }).cacheKey).not.toBe(base);
});

test("compileChecks takes a checked document's enabled checks in order; checksInScope picks by stage, vendor and campaign (ignoring case)", () => {
  const document = {
    checks: [
      { name: "a", url: "https://a.example/c", vendors: ["acme"] },
      { name: "off", url: "https://b.example/c", enabled: false },
      { name: "b", url: "https://b.example/c", campaigns: [" Solar-Q4 "] },
      { name: "c", url: "https://c.example/c", stage: "final" as const },
    ],
  };
  expect(checkPolicyDocument(document).ok).toBe(true);
  const checks = compileChecks(document);
  expect(checks.map((entry) => entry.name)).toEqual(["a", "b", "c"]);
  expect(checksInScope(checks, "intake", "acme", "solar-q4").map((entry) => entry.name)).toEqual(["a", "b"]);
  expect(checksInScope(checks, "intake", "other", "SOLAR-Q4").map((entry) => entry.name)).toEqual(["b"]);
  expect(checksInScope(checks, "intake", "other", null).map((entry) => entry.name)).toEqual([]);
  expect(checksInScope(checks, "final", "other", null).map((entry) => entry.name)).toEqual(["c"]);
  expect(compileChecks({})).toEqual([]);
});
