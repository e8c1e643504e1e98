// Each cap's use and maximum (docs/contract.md §10 "Refusals you can see"), read at scrape time from
// the counters in the database (operations/cap-use.ts), so every instance reports the same figures.
// One series per enabled cap of the policy in force, labelled by the cap's name only: an `each` cap
// reports its busiest bucket, so the series are bounded by the operator's document, never by the
// vendors or campaigns that send.
import { capUse } from "../operations/cap-use.ts";
import type { CompiledPolicy } from "../policy/index.ts";
import type { Store } from "../store/index.ts";
import { renderGaugeSeries } from "./registry.ts";

export async function renderCapGauges(store: Store, policy: CompiledPolicy | undefined, now: number): Promise<string[]> {
  const uses = policy === undefined ? [] : await capUse(store, policy, now);
  // Every enabled cap has its series, an `each` cap included before its first slot.
  const caps = new Map<string, { used: number; max: number }>();
  for (const cap of policy?.document.caps ?? []) if (cap.enabled !== false) caps.set(cap.name, { used: 0, max: cap.max });
  for (const use of uses) caps.set(use.cap, { used: Math.max(caps.get(use.cap)?.used ?? 0, use.used), max: use.max });
  const series = (read: (cap: { used: number; max: number }) => number) => [...caps].map(([cap, figures]) => ({ labels: { cap }, value: read(figures) }));
  return [
    renderGaugeSeries(
      "lead_ingress_policy_cap_used",
      "Slots taken of each enabled cap of the acceptance policy in its current window; for a cap with `each`, the busiest vendor's or campaign's (0 before any took one).",
      series((cap) => cap.used),
    ),
    renderGaugeSeries(
      "lead_ingress_policy_cap_max",
      "Each enabled cap's maximum per window (per vendor or campaign for a cap with `each`).",
      series((cap) => cap.max),
    ),
  ];
}
