// A `checks` entry of the policy document (docs/contract.md §11, src/policy/schema.ts's Check),
// compiled once per policy into what running it needs: its defaults filled in, its cache duration
// in ms, its scope as the policy's other entries have it. The document was checked already
// (checkPolicyDocument), so nothing here reports problems.
import { parseDuration } from "../config/parse.ts";
import { type Check, type EntryScope, foldCampaign, inScope, type Policy, scopeOf } from "../policy/index.ts";

/** timeout_ms when the entry gives none: a check is on intake's path, so the wait is short. */
export const DEFAULT_TIMEOUT_MS = 1_000;

export interface CompiledCheck extends EntryScope {
  name: string;
  stage: "intake" | "final";
  url: string;
  /** The lead fields sent, in the entry's order (postLead names, or extra_data). */
  send: readonly string[];
  timeoutMs: number;
  /** How long an answer is kept per phone number; 0: not cached. */
  cacheMs: number;
  onError: "accept" | "reject";
  /**
   * What a cached answer is kept under besides the phone: the name, URL and fields sent, so an
   * answer given to an earlier definition of the check (another service, other fields) is not reused.
   */
  cacheKey: string;
}

export function compileCheck(entry: Check): CompiledCheck {
  const send = entry.send ?? [];
  return {
    ...scopeOf(entry as unknown as Record<string, unknown>),
    name: entry.name,
    stage: entry.stage ?? "intake",
    url: entry.url,
    send,
    timeoutMs: entry.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    cacheMs: entry.cache === undefined ? 0 : parseDuration(entry.cache),
    onError: entry.on_error ?? "accept",
    cacheKey: JSON.stringify([entry.name, entry.url, send]),
  };
}

/** The enabled checks of a document, in its order. */
export function compileChecks(document: Pick<Policy, "checks">): CompiledCheck[] {
  return (document.checks ?? []).filter((entry) => entry.enabled !== false).map(compileCheck);
}

/** The checks of `stage` whose scope holds the vendor and campaign (compared as the policy's other entries). */
export function checksInScope(checks: readonly CompiledCheck[], stage: "intake" | "final", vendor: string, campaign: string | null): CompiledCheck[] {
  const folded = campaign === null ? null : foldCampaign(campaign);
  return checks.filter((check) => check.stage === stage && inScope(check, vendor, folded));
}

/**
 * The enabled checks of `stage` of a policy, compiled when the policy in force changes (a new
 * version is a new object) and kept until it does: a lead, or a worker's pass, costs one comparison.
 */
export function stageChecksCompiler(stage: "intake" | "final"): (policy: { document: Pick<Policy, "checks"> }) => readonly CompiledCheck[] {
  let compiledFor: object | undefined;
  let compiled: readonly CompiledCheck[] = [];
  return (policy) => {
    if (policy !== compiledFor) {
      compiled = compileChecks(policy.document).filter((check) => check.stage === stage);
      compiledFor = policy;
    }
    return compiled;
  };
}
