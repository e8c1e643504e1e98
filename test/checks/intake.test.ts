// Intake's side of the checks: the policy in force hands postLead the intake checks in its scope
// (policy-in-force/intake.ts: none → null, no promise; final-stage and disabled ones never;
// compiled once per policy version), and their results become intake's answer (checks/intake.ts:
// refusals by kind "check", every answer kept as facts) and metrics (metrics countCheckResult).
import { expect, test } from "bun:test";
import type { CheckResult, CheckRunner, CompiledCheck } from "../../src/checks/index.ts";
import { type IntakeChecks, intakeChecks } from "../../src/checks/intake.ts";
import type { ValidLead } from "../../src/intake/lead-schema.ts";
import { countCheckResult, createMetrics } from "../../src/metrics/index.ts";
import { compilePolicy, type CompiledPolicy, type LeadFacts, type Policy } from "../../src/policy/index.ts";
import { intakePolicy } from "../../src/policy-in-force/intake.ts";
import { check, lead } from "./fixtures.ts";

const validLead = (campaign: string | null) => ({ phoneE164: "+12125550123", state: "NY", vendorCampaignName: campaign }) as ValidLead;

/** An IntakeChecks that records what it is asked to run, and passes every lead. */
function recording() {
  const runs: { names: string[]; facts: LeadFacts }[] = [];
  const checks: IntakeChecks = {
    run: async (list, facts) => {
      runs.push({ names: list.map((c) => c.name), facts });
      return { kind: "passed", answers: {} };
    },
  };
  return { checks, runs };
}

const entry = (name: string, extra: Record<string, unknown> = {}) => ({ name, url: "https://93.184.216.34/check", ...extra });

test("postLeadChecks: null without checks or out of their scope; the intake checks in scope, in order, run only when called", async () => {
  const { checks, runs } = recording();
  const policy = compilePolicy({
    checks: [
      entry("a", { campaigns: ["solar"] }),
      entry("final", { stage: "final" }),
      entry("off", { enabled: false }),
      entry("b", { vendors: ["acme"] }),
      entry("c", { vendors: ["other"] }),
    ],
  } as Policy);
  const withChecks = intakePolicy({ current: () => policy }, checks);
  expect(intakePolicy({ current: () => compilePolicy({}) }, checks).postLeadChecks!("acme", validLead("solar"))).toBeNull();
  expect(intakePolicy({ current: () => policy }).postLeadChecks!("acme", validLead("solar"))).toBeNull();
  expect(withChecks.postLeadChecks!("nobody", validLead("wind"))).toBeNull();
  const run = withChecks.postLeadChecks!("acme", validLead(" SOLAR "));
  expect(runs).toEqual([]);
  expect(await run!()).toEqual({ kind: "passed", answers: {} });
  expect(runs.map((r) => r.names)).toEqual([["a", "b"]]);
  expect(runs[0]!.facts.lead.phoneE164).toBe("+12125550123");
});

test("postLeadChecks: compiled once per policy version, again when the policy in force changes", async () => {
  const { checks, runs } = recording();
  let current: CompiledPolicy = compilePolicy({ checks: [entry("first")] } as Policy);
  const policy = intakePolicy({ current: () => current }, checks);
  await policy.postLeadChecks!("acme", validLead(null))!();
  await policy.postLeadChecks!("acme", validLead(null))!();
  current = compilePolicy({ checks: [entry("second")] } as Policy);
  await policy.postLeadChecks!("acme", validLead(null))!();
  expect(runs.map((r) => r.names)).toEqual([["first"], ["first"], ["second"]]);
});

/** A runner that answers each check as `answers` says, by name. */
function runnerAnswering(answers: Record<string, CheckResult["answer"]>, source: CheckResult["source"] = "request"): CheckRunner {
  return {
    run: async (list) => list.map((c) => ({ check: c, answer: answers[c.name]!, source, durationMs: 20 })),
    forget() {},
  };
}

const checks = (...entries: Partial<Parameters<typeof check>[0]>[]): CompiledCheck[] => entries.map((e) => check(e));

test("intakeChecks: all pass (or errors on_error accepts) → passed with every answer as facts", async () => {
  const observed: string[] = [];
  const run = intakeChecks(runnerAnswering({ a: { outcome: "pass", reason: "clean" }, b: { outcome: "error", error: "timed out after 800 ms" } }), (result) =>
    observed.push(result.check.name),
  );
  expect(await run.run(checks({ name: "a" }, { name: "b", on_error: "accept" }), lead())).toEqual({
    kind: "passed",
    answers: { a: { outcome: "pass", reason: "clean" }, b: { outcome: "error", reason: "Check unavailable: b" } },
  });
  expect(observed).toEqual(["a", "b"]);
});

test("intakeChecks: a fail and an error on_error rejects → refused, reasons and refusers (kind check) in the document's order", async () => {
  const run = intakeChecks(
    runnerAnswering({ a: { outcome: "error", error: "HTTP 500" }, b: { outcome: "pass", reason: "" }, c: { outcome: "fail", reason: "Known litigator" } }),
  );
  expect(await run.run(checks({ name: "a", on_error: "reject" }, { name: "b" }, { name: "c" }), lead())).toEqual({
    kind: "refused",
    reasons: ["Check unavailable: a", "Known litigator"],
    refusedBy: [
      { kind: "check", name: "a" },
      { kind: "check", name: "c" },
    ],
  });
});

test("countCheckResult: a cache hit counts as a hit only; a request as an answer with its wait; the guard's error as an answer without one", () => {
  const metrics = createMetrics();
  const [scrub] = checks({ name: "scrub" });
  countCheckResult(metrics, { check: scrub!, answer: { outcome: "fail", reason: "x" }, source: "cache", durationMs: 0 });
  countCheckResult(metrics, { check: scrub!, answer: { outcome: "pass", reason: "" }, source: "request", durationMs: 20 });
  countCheckResult(metrics, { check: scrub!, answer: { outcome: "error", error: "paused" }, source: "paused", durationMs: 0 });
  expect(metrics.checkCacheHits.render()).toContain('lead_ingress_check_cache_hits_total{check="scrub"} 1');
  const answers = metrics.checkAnswers.render();
  for (const [outcome, count] of [
    ["pass", 1],
    ["fail", 0],
    ["error", 1],
  ])
    expect(answers).toContain(`lead_ingress_check_answers_total{check="scrub",outcome="${outcome}"} ${count}`);
  const duration = metrics.checkDuration.render();
  expect(duration).toContain('lead_ingress_check_duration_seconds_count{check="scrub"} 1');
  expect(duration).toContain('lead_ingress_check_duration_seconds_bucket{check="scrub",le="0.025"} 1');
});
