// Replays a fixtures folder against a running instance: every case in file order, one at a time.
import { describeExpected, runCase, type CaseResult, type ReplayContext } from "./case.ts";
import { type Fixture, loadFixtures } from "./fixture.ts";
import { policySwitch, type PolicyAccess } from "./policy.ts";
import { receiverClient } from "./receiver.ts";
import type { Credentials } from "./request.ts";

export interface ReplayOptions {
  /** The service's base URL. */
  url: string;
  vendor: Credentials;
  /** A second vendor, for "someone else's lead" cases. */
  otherVendor?: Credentials;
  /** The mock receiver's base URL. */
  receiver?: string;
  /** A number already on the target's suppression list. */
  suppressedPhone?: string;
  /** Sets the receiver's signing secret (PUT /_mock/secret) before the run. */
  receiverSecret?: string;
  /**
   * The database the target uses (opened by the caller, as `--database`), and who the audit log
   * names: cases with a policy import theirs there. Without it they are skipped.
   */
  database?: Omit<PolicyAccess, "target">;
  /** Features the target was started with, e.g. "verify-certificates". */
  features?: Iterable<string>;
  /** Only cases whose name contains this text. */
  filter?: string;
  /** Bounds every request, every wait for a callback and every polled step. */
  timeoutMs: number;
  /** Called as each case finishes (the CLI prints its row then). */
  onResult?: (result: CaseResult) => void;
}

export interface ReplayReport {
  results: CaseResult[];
  passed: number;
  failed: number;
  skipped: number;
}

/** Names of the cases a replay of `dir` would run (after the filter), for laying out the table. */
export function caseNames(dir: string, filter?: string): string[] {
  return loadFixtures(dir)
    .map((fixture) => fixture.name)
    .filter((name) => filter === undefined || name.includes(filter));
}

/** Loads (throws FixtureError on a bad file) and runs every case; never throws for a failing case. */
export async function runReplay(dir: string, options: ReplayOptions): Promise<ReplayReport> {
  const fixtures = loadFixtures(dir).filter((fixture) => options.filter === undefined || fixture.name.includes(options.filter));
  const trim = (url: string) => url.replace(/\/+$/, "");
  const receiver =
    options.receiver === undefined ? undefined : { url: trim(options.receiver), client: receiverClient(trim(options.receiver), options.timeoutMs) };
  if (receiver && options.receiverSecret !== undefined) await receiver.client.setSecret(options.receiverSecret);
  const target = { url: trim(options.url), vendor: options.vendor, otherVendor: options.otherVendor, timeoutMs: options.timeoutMs };
  const context: ReplayContext = {
    target,
    receiver,
    ...(options.database === undefined ? {} : { policy: policySwitch({ ...options.database, target }) }),
    ...(options.suppressedPhone === undefined ? {} : { suppressedPhone: options.suppressedPhone }),
    features: new Set(options.features ?? []),
    runId: Buffer.from(crypto.getRandomValues(new Uint8Array(4))).toString("hex"),
  };
  const results: CaseResult[] = [];
  const report = (result: CaseResult) => {
    results.push(result);
    options.onResult?.(result);
  };
  for (const [i, fixture] of fixtures.entries()) {
    // A case without a policy is judged without the cases' policies: the one before is put back.
    // Failing that, no later case is run, since the policy left in force would judge it.
    const restored = fixture.policy ? null : await putBack(context);
    if (restored) {
      report(notRun(fixture, `putting back the policy in force before the replay: ${restored}`, true));
      for (const rest of fixtures.slice(i + 1)) report(notRun(rest, "a case's policy is still in force"));
      break;
    }
    report(await runCase(fixture, context));
  }
  const restored = await putBack(context);
  if (restored)
    report({
      name: "(after the last case)",
      outcome: "fail",
      expected: "",
      got: "error",
      problem: `putting back the policy in force before the replay: ${restored}`,
      durationMs: 0,
    });
  const count = (outcome: CaseResult["outcome"]) => results.filter((r) => r.outcome === outcome).length;
  return { results, passed: count("pass"), failed: count("fail"), skipped: count("skip") };
}

/** Puts back the policy in force before the replay, if a case's is in force; the error's text, or null. */
async function putBack(context: ReplayContext): Promise<string | null> {
  try {
    await context.policy?.use(undefined);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

function notRun(fixture: Fixture, why: string, failed = false): CaseResult {
  return { name: fixture.name, outcome: failed ? "fail" : "skip", expected: describeExpected(fixture), got: "not run", problem: why, durationMs: 0 };
}
