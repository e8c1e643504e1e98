// What a lead's check results decide (src/checks/verdict.ts): fails refuse with their reason,
// errors by on_error, final-stage errors retried before the decision is due; every result a fact.
import { expect, test } from "bun:test";
import { type CheckAnswer, type CheckResult, judgeChecks } from "../../src/checks/index.ts";
import { check } from "./fixtures.ts";

const result = (name: string, answer: CheckAnswer, onError: "accept" | "reject" = "accept"): CheckResult => ({
  check: check({ name, on_error: onError }),
  answer,
  source: "request",
  durationMs: 1,
});

test("passes refuse nothing; a fail refuses with the service's reason; every answer is a check.<name>.* fact", () => {
  const verdict = judgeChecks([result("a", { outcome: "pass", reason: "" }), result("b", { outcome: "fail", reason: "Known litigator" })]);
  expect(verdict).toEqual({
    kind: "decided",
    reasons: ["Known litigator"],
    refusedBy: ["b"],
    facts: { a: { outcome: "pass", reason: "" }, b: { outcome: "fail", reason: "Known litigator" } },
  });
});

test("an error is decided by on_error: accept refuses nothing, reject refuses with 'Check unavailable: <name>'", () => {
  const error: CheckAnswer = { outcome: "error", error: "timed out after 800 ms" };
  expect(judgeChecks([result("a", error, "accept")])).toMatchObject({
    reasons: [],
    refusedBy: [],
    facts: { a: { outcome: "error", reason: "Check unavailable: a" } },
  });
  expect(judgeChecks([result("a", error, "reject")])).toMatchObject({ reasons: ["Check unavailable: a"], refusedBy: ["a"] });
});

test("reasons come in the checks' order, fails and errors alike", () => {
  const verdict = judgeChecks([
    result("first", { outcome: "error", error: "HTTP 500" }, "reject"),
    result("second", { outcome: "fail", reason: "On the do-not-call list" }),
  ]);
  expect(verdict).toMatchObject({ reasons: ["Check unavailable: first", "On the do-not-call list"], refusedBy: ["first", "second"] });
});

test("at the final stage before the decision is due, an error asks for a retry of the checks that erred", () => {
  const results = [result("a", { outcome: "fail", reason: "no" }), result("b", { outcome: "error", error: "HTTP 503" }, "reject")];
  expect(judgeChecks(results, { retryErrors: true })).toEqual({ kind: "retry", names: ["b"] });
  expect(judgeChecks(results, { retryErrors: false })).toMatchObject({ kind: "decided", reasons: ["no", "Check unavailable: b"] });
  expect(judgeChecks([result("a", { outcome: "pass", reason: "" })], { retryErrors: true }).kind).toBe("decided");
});
