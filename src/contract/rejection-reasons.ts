// How a rejected lead's reasons are kept in its one `rejection_reason` column, on either database:
// a single reason as its plain text (every lead decided before final rules existed reads as it
// did), several (a lead failing several final rules, docs/contract.md §10) as a JSON array of
// texts, in order. A leaf module, as texts.ts.

/** Whether `text` reads as a JSON array of texts, so a lone reason written like one is stored as a list, not mistaken for one. */
function asList(text: string): string[] | null {
  if (!text.startsWith("[")) return null;
  try {
    const value: unknown = JSON.parse(text);
    return Array.isArray(value) && value.length > 0 && value.every((item) => typeof item === "string") ? value : null;
  } catch {
    return null;
  }
}

/** The column's text for `reasons` (at least one). */
export function storedReasons(reasons: readonly string[]): string {
  return reasons.length === 1 && asList(reasons[0]!) === null ? reasons[0]! : JSON.stringify(reasons);
}

/** The reasons a stored `rejection_reason` holds, in order: [] for none. */
export function reasonsOf(stored: string | null): string[] {
  if (stored === null) return [];
  return asList(stored) ?? [stored];
}

/** The reasons as one line for a person (the console, the CLI): each, in order, separated by "; ". */
export const reasonsText = (stored: string | null): string => reasonsOf(stored).join("; ");
