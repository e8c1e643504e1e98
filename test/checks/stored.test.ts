// A final-stage check's answer as a lead's finding and back, and each check's answer as the operator
// sees it (checks/stored.ts): pure.
import { expect, test } from "bun:test";
import { compileCheck } from "../../src/checks/entry.ts";
import { checkAnswersView, findingAnswerOf, intakeAnswersOf, resultOfFinding } from "../../src/checks/stored.ts";
import type { Finding } from "../../src/store/findings/index.ts";

const DNC = compileCheck({ name: "dnc", stage: "final", url: "https://dnc.example.com/check", on_error: "reject" });
const AT = Date.UTC(2026, 0, 1);

const asFinding = (answer: ReturnType<typeof findingAnswerOf>): Finding => ({ leadId: "L1", kind: "check", name: "dnc", attempts: 2, firstAt: AT, ...answer });

test("a pass or fail is stored settled with the service's reason; an error open, its description kept for the operator only", () => {
  expect(findingAnswerOf({ check: DNC, answer: { outcome: "fail", reason: "Listed" }, source: "request", durationMs: 4 }, AT, AT)).toEqual({
    outcome: "fail",
    reason: "Listed",
    detail: '{"source":"request"}',
    raw: null,
    checkedAt: AT,
    nextAt: AT,
  });
  expect(findingAnswerOf({ check: DNC, answer: { outcome: "error", error: "HTTP 500" }, source: "request", durationMs: 4 }, AT, AT + 500)).toMatchObject({
    outcome: "error",
    reason: null,
    detail: '{"source":"request","error":"HTTP 500"}',
    nextAt: AT + 500,
  });
});

test("at the decision a finding stands for its answer, or else for an error (never asked, pending, an error still)", () => {
  const failed = asFinding(findingAnswerOf({ check: DNC, answer: { outcome: "fail", reason: "Listed" }, source: "cache", durationMs: 0 }, AT, AT));
  expect(resultOfFinding(DNC, failed).answer).toEqual({ outcome: "fail", reason: "Listed" });
  for (const finding of [undefined, { ...failed, outcome: "pending", reason: null }, { ...failed, outcome: "error", reason: null }])
    expect(resultOfFinding(DNC, finding).answer.outcome).toBe("error");
});

test("the intake answers as stored, tolerant of none and of an unreadable column", () => {
  expect(intakeAnswersOf('{"scrub":{"outcome":"pass","reason":"clean"}}')).toEqual({ scrub: { outcome: "pass", reason: "clean" } });
  for (const json of [null, undefined, "", "not json", "[1]", "null"]) expect(intakeAnswersOf(json)).toEqual({});
});

test("the operator's view: intake answers first, then final-stage findings (not the certificate's) with requests and last error", () => {
  const erred = asFinding(
    findingAnswerOf({ check: DNC, answer: { outcome: "error", error: "timed out after 300 ms" }, source: "request", durationMs: 300 }, AT, AT + 500),
  );
  const certificate = { ...erred, kind: "certificate", name: "trustedform" };
  expect(checkAnswersView('{"scrub":{"outcome":"fail","reason":"Known litigator"}}', [certificate, erred])).toEqual([
    { check: "scrub", stage: "intake", outcome: "fail", reason: "Known litigator" },
    { check: "dnc", stage: "final", outcome: "error", reason: null, attempts: 2, checked_at: new Date(AT).toISOString(), error: "timed out after 300 ms" },
  ]);
});
