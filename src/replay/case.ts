// Runs one fixture case: checks what it needs, prepares the receiver, runs its steps in order
// (stopping at the first mismatch: later steps build on earlier ones), then waits for its callback.
import { CHECK_PREFIX } from "../mock-receiver/index.ts";
import { checkCallbacks, waitForCallbacks } from "./callback.ts";
import type { Fixture } from "./fixture.ts";
import { freshPhone } from "./phone.ts";
import { fillPlaceholders, usesPlaceholder, type CaseValues } from "./placeholders.ts";
import type { PolicySwitch } from "./policy.ts";
import type { ReceiverClient } from "./receiver.ts";
import type { Target } from "./request.ts";
import { describeCounts, runStep } from "./step.ts";

export interface CaseResult {
  name: string;
  outcome: "pass" | "fail" | "skip";
  /** For the table: the statuses (and callback) the case expects… */
  expected: string;
  /** …and what came; for a skipped case, why it was skipped. */
  got: string;
  /** Where the first difference is (failures only). */
  problem?: string;
  durationMs: number;
}

export interface ReplayContext {
  target: Target;
  /** The mock receiver's base URL and its control client; absent without --receiver. */
  receiver?: { url: string; client: ReceiverClient };
  /** Features the target was started with (--with); "receiver", "other-vendor" and "suppressed-phone" come from options. */
  features: ReadonlySet<string>;
  /** A number on the target's suppression list, for the suppression cases. */
  suppressedPhone?: string;
  /** The policy in force on the target's database (--database): cases with a policy put theirs in force. */
  policy?: PolicySwitch;
  /** Random per replay run, so a case's receiver paths never collide with an earlier run's. */
  runId: string;
}

/** What a case needs to run: its declared "requires", plus what its content implies. */
export function requirementsOf(fixture: Fixture): string[] {
  const needs = new Set(fixture.requires);
  const mocks = fixture.checks.length > 0 || fixture.certificates.length > 0 || usesPlaceholder(fixture, "check_url");
  if (fixture.callback || fixture.receiver.length > 0 || mocks || usesPlaceholder(fixture.steps, "receiver")) needs.add("receiver");
  if (fixture.certificates.length > 0) needs.add("trustedform");
  if (fixture.steps.some((step) => step.request.auth === "other-vendor")) needs.add("other-vendor");
  if (usesPlaceholder(fixture.steps, "suppressed_phone")) needs.add("suppressed-phone");
  if (fixture.policy) needs.add("database");
  return [...needs].sort();
}

function available(feature: string, context: ReplayContext): boolean {
  if (feature === "receiver") return context.receiver !== undefined;
  if (feature === "other-vendor") return context.target.otherVendor !== undefined;
  if (feature === "suppressed-phone") return context.suppressedPhone !== undefined;
  if (feature === "database") return context.policy !== undefined;
  return context.features.has(feature);
}

export function describeExpected(fixture: Fixture): string {
  const steps = fixture.steps.map((step) => ("statusCounts" in step.expect ? describeCounts(step.expect.statusCounts) : String(step.expect.status)));
  if (!fixture.callback) return steps.join(" → ");
  return `${steps.join(" → ")} + ${fixture.callback.attempts === 1 ? "callback" : `${fixture.callback.attempts} callbacks`}`;
}

type Outcome = (outcome: CaseResult["outcome"], got: string, problem?: string) => CaseResult;

export async function runCase(fixture: Fixture, context: ReplayContext): Promise<CaseResult> {
  const started = performance.now();
  const expected = describeExpected(fixture);
  const result: Outcome = (outcome, got, problem) => ({
    name: fixture.name,
    outcome,
    expected,
    got,
    ...(problem === undefined ? {} : { problem }),
    durationMs: Math.round(performance.now() - started),
  });

  const missing = requirementsOf(fixture).filter((feature) => !available(feature, context));
  if (missing.length > 0) return result("skip", `needs ${missing.map(howToEnable).join(", ")}`);

  const prefix = `/replay/${context.runId}/${fixture.name.replace(/[^A-Za-z0-9-]+/g, "-")}`;
  const [phone, phone2, phone3] = [freshPhone(), freshPhone(), freshPhone()];
  const values: CaseValues = {
    phone: phone.display,
    phone_e164: phone.e164,
    phone2: phone2.display,
    phone2_e164: phone2.e164,
    phone3: phone3.display,
    phone3_e164: phone3.e164,
    unique: `${context.runId}-${crypto.randomUUID()}`,
    trustedform_id: Buffer.from(crypto.getRandomValues(new Uint8Array(20))).toString("hex"),
    vendor: context.target.vendor.user,
    ...(context.suppressedPhone === undefined ? {} : { suppressed_phone: context.suppressedPhone }),
    ...(context.receiver ? { receiver: `${context.receiver.url}${prefix}`, check_url: `${context.receiver.url}${CHECK_PREFIX}${prefix}` } : {}),
  };
  if (fixture.policy) {
    // In force before the first step: the replay waits until the target applies it.
    try {
      await context.policy!.use(JSON.stringify(fillPlaceholders(fixture.policy, values)));
    } catch (error) {
      return result("fail", "error", `putting the case's policy in force: ${(error as Error).message}`);
    }
  }
  return await runContent(fixture, context, values, prefix, result);
}

/** The receiver's behaviours, the steps in order, then the callback. */
async function runContent(fixture: Fixture, context: ReplayContext, values: CaseValues, prefix: string, result: Outcome): Promise<CaseResult> {
  const got: string[] = [];
  const behaviourPaths: string[] = [];
  const checkPhones: string[] = [];
  try {
    for (const answer of fillPlaceholders(fixture.checks, values)) {
      await context.receiver!.client.setCheckAnswer(answer);
      if (typeof answer.phone === "string") checkPhones.push(answer.phone);
    }
    for (const behaviour of fillPlaceholders(fixture.certificates, values)) await context.receiver!.client.setCertificate(behaviour);
    for (const behaviour of fixture.receiver) {
      const path = `${prefix}${behaviour.path}`;
      await context.receiver!.client.setBehaviour({ ...behaviour, path });
      behaviourPaths.push(path);
    }
    for (const [i, step] of fixture.steps.entries()) {
      const outcome = await runStep(step, context.target, values);
      got.push(outcome.got);
      if (outcome.mismatch !== null) return result("fail", got.join(" → "), `step ${i + 1} (${step.request.method} ${step.request.path}): ${outcome.mismatch}`);
      const leadId = (outcome.answer?.body as Record<string, unknown> | undefined)?.lead_id;
      if (typeof leadId === "string") values.lead_id = leadId;
    }
    const steps = got.join(" → ");
    if (!fixture.callback) return result("pass", steps);
    const { path, attempts } = fixture.callback;
    const callbacks = await waitForCallbacks(context.receiver!.client, `${prefix}${path}`, attempts, context.target.timeoutMs);
    const gotCallbacks = `${steps} + ${callbacks.length === 0 ? "no callback" : callbacks.length === 1 ? "callback" : `${callbacks.length} callbacks`}`;
    if (callbacks.length < attempts)
      return result("fail", gotCallbacks, `callback: ${callbacks.length} of ${attempts} arrived at ${path} within ${context.target.timeoutMs} ms`);
    const mismatch = checkCallbacks(fillPlaceholders(fixture.callback, values), callbacks.slice(0, attempts));
    return result(mismatch === null ? "pass" : "fail", gotCallbacks, mismatch ?? undefined);
  } catch (error) {
    return result("fail", [...got, "error"].join(" → "), (error as Error).message);
  } finally {
    for (const path of behaviourPaths) await context.receiver!.client.resetBehaviour(path).catch(() => undefined);
    for (const phone of checkPhones) await context.receiver!.client.resetCheckAnswers(phone).catch(() => undefined);
  }
}

function howToEnable(feature: string): string {
  if (feature === "receiver") return "--receiver";
  if (feature === "other-vendor") return "--other-user/--other-password";
  if (feature === "suppressed-phone") return "--suppressed-phone";
  if (feature === "database") return "--database";
  if (feature === "trustedform") return "--with trustedform (the target verifies TrustedForm certificates at the receiver's /trustedform)";
  return `--with ${feature}`;
}
