// A case's acceptance policy (fixtures/README.md "A case with a policy"): imported the way an
// operator's `rules import` does, into the database the target uses, and waited for until the target
// applies it; before the next case without one, and at the end, the document that was in force
// before is imported back the same way.
import { exportPolicy, importPolicy } from "../policy-in-force/manage.ts";
import type { Store } from "../store/index.ts";
import type { Target } from "./request.ts";

const POLL_INTERVAL_MS = 100;

/** The policy in force on the target's database; imports land there and are awaited on the target. */
export interface PolicyAccess {
  store: Store;
  target: Target;
  /** Who the audit log's `policy.import` entries name: the OS user running the replay, as for `rules import`. */
  actor: string;
}

/** Which document is in force during a replay: a case's own, or the one in force before the replay. */
export interface PolicySwitch {
  /**
   * Puts a case's document in force (`document`), or, for a case without one, the document that was
   * in force before the first case's (nothing to do when no case's is in force). Consecutive cases
   * with a policy go from one to the next directly: each import waits up to a second.
   */
  use(document: string | undefined): Promise<void>;
}

export function policySwitch(access: PolicyAccess): PolicySwitch {
  // Set while a case's document is in force: what to put back (`{}` when none was imported).
  let before: string | undefined;
  return {
    async use(document) {
      if (document === undefined) {
        if (before === undefined) return;
        await installPolicy(access, before);
        before = undefined;
        return;
      }
      before ??= (await exportPolicy(access.store)).document;
      await installPolicy(access, document);
    },
  };
}

/**
 * Imports `document` (an invalid one throws with every problem), then waits until the target's
 * GET /metrics reports that version as the one it applies: the service reads the version every
 * second, so the case's first step is judged by this document and no other.
 */
export async function installPolicy(access: PolicyAccess, document: string): Promise<void> {
  const outcome = await importPolicy(access.store, document, access.actor);
  if (outcome.kind === "invalid") throw new Error(`the policy is invalid: ${outcome.problems.map((p) => `${p.path || "/"}: ${p.message}`).join("; ")}`);
  await untilApplied(access.target, outcome.version);
}

async function untilApplied(target: Target, version: number): Promise<void> {
  const deadline = performance.now() + target.timeoutMs;
  for (;;) {
    const seen = await appliedVersion(target).catch((error: Error) => `an error (${error.message})`);
    if (seen === String(version)) return;
    if (performance.now() >= deadline) {
      throw new Error(
        `the target did not apply policy version ${version} within ${target.timeoutMs} ms (its /metrics says lead_ingress_policy_version ${seen}): does it use the database given to the replay?`,
      );
    }
    await Bun.sleep(POLL_INTERVAL_MS);
  }
}

/** The target's `lead_ingress_policy_version`, as text ("absent" when the line is not there). */
async function appliedVersion(target: Target): Promise<string> {
  const response = await fetch(`${target.url}/metrics`, { signal: AbortSignal.timeout(target.timeoutMs) });
  const text = await response.text();
  return /^lead_ingress_policy_version (\d+)$/m.exec(text)?.[1] ?? `absent (HTTP ${response.status})`;
}
