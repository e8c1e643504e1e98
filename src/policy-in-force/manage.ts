// The operator's changes to the policy (docs/contract.md §10 "Managing it"): a document checked
// whole and stored at once with a bumped version and an audit entry saying what changed, or refused
// with every problem by path and nothing changed; and the document in force, as imported.
import { op } from "../db/script.ts";
import { checkPolicyDocument, type Policy, type Problem } from "../policy/index.ts";
import { auditEntry } from "../store/audit/index.ts";
import { type Store, WriteConflict } from "../store/index.ts";

export type PolicyReading = { ok: true; policy: Policy } | { ok: false; problems: Problem[] };

/** A document's text as `rules import` reads it: JSON, then every problem of the format. */
export function readPolicyText(text: string): PolicyReading {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { ok: false, problems: [{ path: "", message: `is not JSON: ${(error as Error).message}` }] };
  }
  const checked = checkPolicyDocument(value);
  return checked;
}

export type ImportOutcome = { kind: "invalid"; problems: Problem[] } | { kind: "imported"; version: number; changes: string[]; notApplied: string[] };

/**
 * Notes on the entries of a valid document whose effect depends on more than the document, by path
 * and name. Every entry is applied, final-stage checks and the check.<name>.* facts included
 * (docs/contract.md §11); but a final rule reading `certificate.*` reads facts only a service with a
 * TrustedForm key fills (--trustedform-api-key, docs/certificates.md): elsewhere they are blank, and
 * the document alone cannot tell the operator which.
 */
export function notAppliedYet(policy: Policy): string[] {
  return (policy.rules ?? []).flatMap((rule, i) =>
    rule.stage === "final" && readsCertificateFacts(rule)
      ? [
          `/rules/${i} (${rule.name}): a final rule reading certificate.* facts, which are blank unless the service verifies TrustedForm certificates (--trustedform-api-key)`,
        ]
      : [],
  );
}

const CERTIFICATE_FACT = /^certificate\./;

/** Whether a rule's condition or reason template names a certificate.* fact. */
function readsCertificateFacts(rule: { require: unknown; reason?: string }): boolean {
  const reads = (condition: unknown): boolean => {
    if (typeof condition !== "object" || condition === null) return false;
    const node = condition as Record<string, unknown>;
    if (typeof node.field === "string" && CERTIFICATE_FACT.test(node.field)) return true;
    return [node.not, ...(Array.isArray(node.all) ? node.all : []), ...(Array.isArray(node.any) ? node.any : [])].some(reads);
  };
  return reads(rule.require) || /\{certificate\./.test(rule.reason ?? "");
}

/**
 * Replaces the policy in force with `text` when it is a valid document: one transaction stores it,
 * bumps the version (which every instance reads within a second) and appends the audit entry.
 */
export async function importPolicy(store: Store, text: string, actor: string, now = Date.now()): Promise<ImportOutcome> {
  // Without a version read first nothing is stale.
  return (await replacePolicy(store, text, actor, now, null)) as ImportOutcome;
}

/** The policy was replaced after the editor read it: nothing changed. What saving over it would change, for the editor to judge. */
export type StaleOutcome = { kind: "stale"; version: number; changes: string[] };

/**
 * importPolicy for an editor (the console's form) that read the policy at `readVersion`: when it
 * was replaced since, nothing changes, so a second editor's save never silently undoes the first's.
 */
export async function importPolicyOver(
  store: Store,
  text: string,
  actor: string,
  readVersion: number,
  now = Date.now(),
): Promise<ImportOutcome | StaleOutcome> {
  return await replacePolicy(store, text, actor, now, readVersion);
}

async function replacePolicy(store: Store, text: string, actor: string, now: number, readVersion: number | null): Promise<ImportOutcome | StaleOutcome> {
  const reading = readPolicyText(text);
  if (!reading.ok) return { kind: "invalid", problems: reading.problems };
  return await store.write(function* (t) {
    const before = yield* op(t.policy.current());
    const beforeVersion = before?.version ?? 0;
    const changes = describeChanges(before === null ? {} : (JSON.parse(before.document) as Policy), reading.policy);
    if (readVersion !== null && readVersion !== beforeVersion) return { kind: "stale" as const, version: beforeVersion, changes };
    const version = yield* op(t.policy.replace(text, now, actor));
    // PostgreSQL's READ COMMITTED lets another import commit between the read and the replace (the
    // row lock then makes this one bump past it): run again, so that the diff and the version check
    // are against what was really replaced. SQLite's writes are serial: never there.
    if (version !== beforeVersion + 1) throw new WriteConflict("the policy was replaced during this import");
    const detail = `version ${version}. ${changes.join(". ")}`;
    yield* op(t.audit.append(auditEntry({ actor, action: "policy.import", subject: "policy", detail }, now)));
    return { kind: "imported" as const, version, changes, notApplied: notAppliedYet(reading.policy) };
  });
}

/** The document in force exactly as imported, or `{}` (the empty policy) when none was. */
export async function exportPolicy(store: Store): Promise<{ version: number; document: string }> {
  const row = await store.read((t) => op(t.policy.current()));
  return row === null ? { version: 0, document: "{}" } : { version: row.version, document: row.document };
}

const LISTS = ["rules", "schedules", "caps", "checks"] as const;

/**
 * What an import changed, readable in the audit log: per list, the entries added, removed and
 * changed by name, and whether their order (which orders refusals' reasons) changed.
 */
export function describeChanges(before: Policy, after: Policy): string[] {
  const changes: string[] = [];
  for (const list of LISTS) {
    const old = (before[list] ?? []) as { name: string }[];
    const now = (after[list] ?? []) as { name: string }[];
    const oldByName = new Map(old.map((entry) => [entry.name, entry]));
    const nowNames = new Set(now.map((entry) => entry.name));
    const added = now.filter((entry) => !oldByName.has(entry.name)).map((entry) => entry.name);
    const removed = old.filter((entry) => !nowNames.has(entry.name)).map((entry) => entry.name);
    const changed = now.filter((entry) => oldByName.has(entry.name) && !Bun.deepEquals(oldByName.get(entry.name), entry)).map((entry) => entry.name);
    const kept = now.filter((entry) => oldByName.has(entry.name)).map((entry) => entry.name);
    const reordered =
      kept.join("\n") !==
      old
        .filter((entry) => nowNames.has(entry.name))
        .map((entry) => entry.name)
        .join("\n");
    const parts = [
      added.length > 0 ? `added ${added.join(", ")}` : "",
      removed.length > 0 ? `removed ${removed.join(", ")}` : "",
      changed.length > 0 ? `changed ${changed.join(", ")}` : "",
      reordered ? "reordered" : "",
    ].filter((part) => part !== "");
    if (parts.length > 0) changes.push(`${list}: ${parts.join("; ")}`);
  }
  return changes.length > 0 ? changes : ["no entry changed"];
}
