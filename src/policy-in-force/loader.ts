// The policy in force on this instance (docs/policy.md "In force"): the stored document compiled
// once, and its version read every second (--policy-reload-interval), the document read and
// compiled again only when the version moved. So a `rules import` from the CLI or another instance
// takes effect on every instance within about a second (two at most, even when a read is slow),
// without a restart, and a second that changed nothing costs one indexed read of one row.
import type { Config } from "../config/index.ts";
import { op } from "../db/script.ts";
import { errorText, type Logger } from "../log/index.ts";
import { type CompiledPolicy, checkPolicyDocument, compilePolicy } from "../policy/index.ts";
import type { Store } from "../store/index.ts";
import { reloadEvery } from "../store/periodic-reload.ts";

export interface PolicyInForce {
  /** The compiled policy in force now; the same object until the version changes. */
  current(): CompiledPolicy;
  /** The version it was compiled from (0: none imported yet, the empty policy). */
  version(): number;
  /** Reads the version now (after this process imported a document). */
  refresh(): Promise<void>;
  stop(): void;
}

/** The empty policy: no entries, nothing refused (a database where no document was imported). */
export const EMPTY_POLICY: CompiledPolicy = compilePolicy({});

/**
 * Loads the policy now, then checks its version every `reloadMs` (null: only when `refresh` is
 * called, for a thread that follows the version its process's loader reads). A failed read keeps the policy
 * in force (the database's outage already makes intake answer 503) and is reported once per run of
 * failures; so is a stored document this build cannot compile (written by a newer release).
 */
export async function loadPolicyInForce(store: Store, options: { reloadMs: number | null; onError?: (error: unknown) => void }): Promise<PolicyInForce> {
  let policy = EMPTY_POLICY;
  let version = 0;
  const load = async () => {
    const stored = await store.read((t) => op(t.policy.version()));
    if (stored === version) return;
    const row = await store.read((t) => op(t.policy.current()));
    if (row === null) {
      [policy, version] = [EMPTY_POLICY, 0];
      return;
    }
    const checked = checkPolicyDocument(JSON.parse(row.document));
    if (!checked.ok)
      throw new Error(`the stored policy (version ${row.version}) is invalid: ${checked.problems.map((p) => `${p.path}: ${p.message}`).join("; ")}`);
    [policy, version] = [compilePolicy(checked.policy), row.version];
  };
  await load();
  const reloading = options.reloadMs === null ? { stop() {} } : reloadEvery(load, options.reloadMs, options.onError);
  return {
    current: () => policy,
    version: () => version,
    refresh: load,
    stop: reloading.stop,
  };
}

/** A service process's policy (intake's, the worker thread's): reloaded every --policy-reload-interval, a failed reload logged. */
export function loadServicePolicy(store: Store, config: Pick<Config, "policyReloadMs">, log: Logger): Promise<PolicyInForce> {
  return loadPolicyInForce(store, {
    reloadMs: config.policyReloadMs,
    onError: (error) => log.error("policy_reload_failed", { error: errorText(error), action: "keeping the policy in force; retrying at the next reload" }),
  });
}
