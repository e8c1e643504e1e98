// What the Policy page shows of the policy at work (docs/policy.md "Caps"): each enabled cap's use
// in its current window, bucket by bucket, and each rule's, schedule's, cap's and check's refusals since
// 00:00 UTC today (the console's times are UTC).
import { capUse, type CapUse } from "../operations/cap-use.ts";
import { calendarWindow, compilePolicy, type Policy } from "../policy/index.ts";
import { refusalsPerEntry } from "../refusals/per-entry.ts";
import type { Store } from "../store/index.ts";
import { html, type Html } from "./html.ts";
import { timeText } from "./page.ts";

/** An `each: campaign` cap may have a bucket per campaign: the page shows the busiest this many of a cap. */
export const BUCKETS_SHOWN = 10;
const DAY_MS = 86_400_000;

export interface PolicyUse {
  caps: CapUse[];
  /** Refusals since `since` by `kind\u0000name`. */
  refused: Map<string, number>;
  since: number;
}

/** Today's start, 00:00 UTC, at `now`. */
export const startOfUtcDay = (now: number): number => Math.floor(now / DAY_MS) * DAY_MS;

/** The caps' use and the entries' refusals of `policy` (none of its caps when the document in force does not compile). */
export async function policyUse(store: Store, policy: Policy | null, now: number): Promise<PolicyUse> {
  const since = startOfUtcDay(now);
  const [caps, refusals] = await Promise.all([policy === null ? [] : capUse(store, compilePolicy(policy), now), refusalsPerEntry(store, since)]);
  return { caps, since, refused: new Map(refusals.map((entry) => [`${entry.kind}\u0000${entry.name}`, entry.count])) };
}

const KINDS: Record<string, string> = { rules: "rule", schedules: "schedule", caps: "cap", checks: "check" };

/** An entry's cell in the Entries table: how many it refused today (an intake check's 422s included). */
export function refusedCell(use: PolicyUse, list: string, name: string): Html {
  const kind = KINDS[list];
  return kind === undefined ? html`<td class="muted">—</td>` : html`<td>${String(use.refused.get(`${kind}\u0000${name}`) ?? 0)}</td>`;
}

/** The caps' use table: per cap its buckets, the busiest first, at most BUCKETS_SHOWN and a line for the rest. */
export function capUseTable(use: PolicyUse, policy: Policy | null, now: number): Html {
  const caps = (policy?.caps ?? []).filter((cap) => cap.enabled !== false);
  if (caps.length === 0) return html``;
  const byCap = new Map<string, CapUse[]>();
  for (const bucket of use.caps) byCap.set(bucket.cap, [...(byCap.get(bucket.cap) ?? []), bucket]);
  const rows = caps.map((cap) => {
    const buckets = (byCap.get(cap.name) ?? []).sort((a, b) => b.used - a.used || a.bucket.localeCompare(b.bucket));
    const shown = buckets.slice(0, BUCKETS_SHOWN);
    const window = calendarText(cap.per, cap.time_zone ?? "UTC");
    const lines = shown.map(
      (bucket) =>
        html`<tr><td class="mono">${cap.name}</td><td>${bucket.bucket === "" ? "all in scope" : html`${cap.each} <span class="mono">${bucket.bucket}</span>`}</td><td>${String(bucket.used)} / ${String(bucket.max)}</td><td class="mono">${timeText(bucket.windowEnd)}</td><td>${window}</td></tr>`,
    );
    if (cap.each !== undefined && buckets.length === 0)
      lines.push(
        html`<tr><td class="mono">${cap.name}</td><td class="muted">no ${cap.each} took a slot in this window</td><td>0 / ${String(cap.max)}</td><td class="mono">${timeText(calendarWindow(cap.per, now, cap.time_zone ?? "UTC").end)}</td><td>${window}</td></tr>`,
      );
    if (buckets.length > shown.length)
      lines.push(html`<tr><td class="mono">${cap.name}</td><td class="muted" colspan="4">and ${String(buckets.length - shown.length)} more</td></tr>`);
    return lines;
  });
  return html`<h2>Caps in their windows</h2>
<table id="cap-use">
<thead><tr><th>Cap</th><th>Counted for</th><th>Used / max</th><th>Window ends</th><th>Window</th></tr></thead>
<tbody>${rows}</tbody>
</table>`;
}

const calendarText = (per: string, zone: string): string => `a ${per} in ${zone}`;
