// Refusals per policy entry since a time, from the refusal log: what the console shows beside each
// rule, schedule and cap ("refused today"). The database counts each combination of entries that
// refused together; a lead refused by two rules counts once for each.
import { op } from "../db/script.ts";
import type { RefusedBy } from "../intake/policy-port.ts";
import type { Store } from "../store/index.ts";

export interface EntryRefusals extends RefusedBy {
  count: number;
}

/** Each entry that refused a postLead at or after `from`, with how many it refused, most first. */
export async function refusalsPerEntry(store: Store, from: number): Promise<EntryRefusals[]> {
  const combinations = await store.read((t) => op(t.refusals.countsByRefusers(from)));
  const counts = new Map<string, EntryRefusals>();
  for (const { refusedBy, count } of combinations) {
    for (const { kind, name } of JSON.parse(refusedBy) as RefusedBy[]) {
      const key = `${kind}\u0000${name}`;
      const entry = counts.get(key) ?? { kind, name, count: 0 };
      entry.count += Number(count);
      counts.set(key, entry);
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.kind.localeCompare(b.kind) || a.name.localeCompare(b.name));
}
