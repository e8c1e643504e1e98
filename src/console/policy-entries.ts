// The policy document's entries as the Policy page lists them, and one entry's `enabled` changed in
// the document's JSON (the page then imports it as any edit: checked, versioned, audited).
import { isPlainObject } from "../policy/problems.ts";

const LISTS = ["rules", "schedules", "caps", "checks"] as const;

export interface ListedEntry {
  list: (typeof LISTS)[number];
  name: string;
  /** A rule's stage (intake unless it says final); none for the other lists. */
  stage: string | null;
  /** Whom it applies to, in words: its vendors and campaigns, or everyone. */
  scope: string;
  enabled: boolean;
}

const named = (value: unknown): string[] | null => (Array.isArray(value) ? value.map(String) : null);

/** The entries of a stored document, list by list in document order; none of a document that is not JSON. */
export function policyEntries(document: string): ListedEntry[] {
  let value: unknown;
  try {
    value = JSON.parse(document);
  } catch {
    return [];
  }
  if (!isPlainObject(value)) return [];
  return LISTS.flatMap((list) =>
    (Array.isArray(value[list]) ? (value[list] as unknown[]) : []).filter(isPlainObject).map((entry) => {
      const vendors = named(entry.vendors);
      const campaigns = named(entry.campaigns);
      const scope = [vendors ? `vendors ${vendors.join(", ")}` : "every vendor", campaigns ? `campaigns ${campaigns.join(", ")}` : "every campaign"].join("; ");
      return {
        list,
        name: String(entry.name ?? ""),
        stage: list === "rules" ? String(entry.stage ?? "intake") : null,
        scope,
        enabled: entry.enabled !== false,
      };
    }),
  );
}

/**
 * The document with the entry `name` of `list` enabled (its `enabled` removed: true is the default)
 * or disabled (`"enabled": false`), indented; null when the document has no such entry.
 */
export function withEntryEnabled(document: string, list: string, name: string, enabled: boolean): string | null {
  if (!(LISTS as readonly string[]).includes(list)) return null;
  let value: unknown;
  try {
    value = JSON.parse(document);
  } catch {
    return null;
  }
  if (!isPlainObject(value) || !Array.isArray(value[list])) return null;
  const entry = (value[list] as unknown[]).find((item) => isPlainObject(item) && item.name === name) as Record<string, unknown> | undefined;
  if (entry === undefined) return null;
  if (enabled) delete entry.enabled;
  else entry.enabled = false;
  return `${JSON.stringify(value, null, 2)}\n`;
}
