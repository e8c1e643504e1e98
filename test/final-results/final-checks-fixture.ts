// The final-stage checks' decision on either database (sqlite-batches, pg-worker, final-checks
// tests): a policy with one final check (on_error reject) and a final rule reading an intake
// check's reason, four held leads whose stored answers each decide differently, and what each is
// decided. `write` runs a script on the test's tables; `setIntakeAnswers` stores leads.check_answers.
import { checkFinding, findingAnswerOf } from "../../src/checks/stored.ts";
import { compileCheck } from "../../src/checks/entry.ts";
import type { Script } from "../../src/db/script.ts";
import { op } from "../../src/db/script.ts";
import { storeFinding } from "../../src/hold/asking.ts";
import { compilePolicy } from "../../src/policy/index.ts";
import type { Tables } from "../../src/store/index.ts";

export const FINAL_CHECKS_POLICY = compilePolicy({
  rules: [
    {
      name: "no-landline",
      stage: "final",
      require: { field: "check.linetype.reason", op: "not_equals", value: "landline" },
      reason: "Landline: {check.dnc.outcome}",
    },
  ],
  checks: [
    { name: "linetype", url: "https://lines.example.com/check", send: ["phone_number"] },
    { name: "dnc", stage: "final", url: "https://dnc.example.com/check", send: ["phone_number"], on_error: "reject" },
    { name: "elsewhere", stage: "final", url: "https://dnc.example.com/other", vendors: ["vendor-other"], on_error: "reject" },
  ],
});

const DNC = compileCheck({ name: "dnc", stage: "final", url: "https://dnc.example.com/check", on_error: "reject" });

function* answered(t: Tables, leadId: string, outcome: "pass" | "fail" | "error", reason: string, at: number): Script<void> {
  const key = checkFinding("dnc");
  yield* op(t.findings.claim(key, [leadId], at, at + 1_000));
  const answer = outcome === "error" ? ({ outcome, error: "HTTP 500" } as const) : { outcome, reason };
  yield* storeFinding(t, key, leadId, findingAnswerOf({ check: DNC, answer, source: "request", durationMs: 5 }, at, at));
}

/** Stores each lead's answers (lead ids in phone order); answers the stored rejection_reason (null: accepted) each is to be decided with. */
export async function arrangeFinalChecks(
  leads: string[],
  write: (script: (t: Tables) => Script<void>) => Promise<unknown>,
  setIntakeAnswers: (leadId: string, json: string) => Promise<unknown>,
  at: number,
): Promise<(string | null)[]> {
  const [failed, erred, landline, clean] = leads as [string, string, string, string];
  await write((t) => answered(t, failed, "fail", "On the do-not-call list", at));
  await write((t) => answered(t, erred, "error", "", at));
  await write((t) => answered(t, landline, "pass", "clean", at));
  await write((t) => answered(t, clean, "pass", "clean", at));
  await setIntakeAnswers(landline, JSON.stringify({ linetype: { outcome: "pass", reason: "landline" } }));
  await setIntakeAnswers(clean, JSON.stringify({ linetype: { outcome: "pass", reason: "mobile" } }));
  return ["On the do-not-call list", "Check unavailable: dnc", "Landline: pass", null];
}
