// Each cap's use in its current window (docs/policy.md "Caps"), for the console and metrics: per
// enabled cap of the policy in force, the slots taken of each bucket and the cap's max.
import { op, type Script } from "../db/script.ts";
import { type CompiledPolicy, calendarWindow } from "../policy/index.ts";
import type { Store, Tables } from "../store/index.ts";

export interface CapUse {
  cap: string;
  counts: "leads" | "pings";
  /** The vendor's name or the folded campaign of an `each` cap; "" for a cap counted together. */
  bucket: string;
  used: number;
  max: number;
  windowStart: number;
  windowEnd: number;
}

function* capUseScript(t: Tables, policy: CompiledPolicy, now: number): Script<CapUse[]> {
  const uses: CapUse[] = [];
  for (const cap of policy.document.caps ?? []) {
    if (cap.enabled === false) continue;
    const window = calendarWindow(cap.per, now, cap.time_zone ?? "UTC");
    const counters = yield* op(t.capUsage.inWindow(cap.name, window.start));
    const common = { cap: cap.name, counts: cap.counts, max: cap.max, windowStart: window.start, windowEnd: window.end };
    // A cap counted together always has its one bucket (0 before the window's first slot); an
    // `each` cap lists the buckets that took a slot.
    if (cap.each === undefined && counters.length === 0) uses.push({ ...common, bucket: "", used: 0 });
    for (const counter of counters) uses.push({ ...common, bucket: counter.bucket, used: counter.used });
  }
  return uses;
}

/** Every enabled cap's use in its window at `now`, in the document's order, buckets by name. */
export async function capUse(store: Store, policy: CompiledPolicy, now: number): Promise<CapUse[]> {
  return store.read((t) => capUseScript(t, policy, now));
}
