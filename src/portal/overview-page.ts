// The portal's Overview: the vendor's leads today and this week (UTC) by outcome, its acceptance
// rate, its refused requests by reason, and its callbacks delivered and failing.
import { LEAD_STATUSES } from "../db/schema.ts";
import { op } from "../db/script.ts";
import { countCallbacks } from "../operations/callbacks.ts";
import { html, type Html } from "../console/html.ts";
import { refusalReasons, searchRefusals } from "../console/refusals-page.ts";
import { startOfUtcDay } from "../console/policy-use.ts";
import { portalHref, portalPage, type PortalContext } from "./page.ts";

const DAY_MS = 86_400_000;
/** Refusals read to count this week's reasons; past it the page says the counts are of the latest. */
const REFUSALS_COUNTED = 5_000;
/** Callbacks counted per status at most. */
const CALLBACKS_COUNTED = 100_000;

/** Monday 00:00 UTC of the week of `now`. */
export const startOfUtcWeek = (now: number): number => startOfUtcDay(now) - ((new Date(now).getUTCDay() + 6) % 7) * DAY_MS;

interface Period {
  label: string;
  since: number;
}

export async function overviewPage(context: PortalContext): Promise<Response> {
  const { store, viewer, now } = context;
  const periods: Period[] = [
    { label: "Today", since: startOfUtcDay(now) },
    { label: "This week", since: startOfUtcWeek(now) },
  ];
  const week = periods[1]!.since;
  const [tallies, refusals, delivered, failing, dead] = await Promise.all([
    store.read((t) => op(t.leads.tally(week, viewer.vendorName))),
    searchRefusals(store, { vendorId: viewer.vendorId, from: week, limit: REFUSALS_COUNTED }),
    countCallbacks(store, { vendorName: viewer.vendorName, status: "delivered", receivedFrom: week }, CALLBACKS_COUNTED),
    countCallbacks(store, { vendorName: viewer.vendorName, status: "pending", receivedFrom: week }, CALLBACKS_COUNTED),
    countCallbacks(store, { vendorName: viewer.vendorName, status: "dead", receivedFrom: week }, CALLBACKS_COUNTED),
  ]);
  // The tally is by creation day: today's share is counted again from the leads of today alone.
  const today = await store.read((t) => op(t.leads.tally(periods[0]!.since, viewer.vendorName)));
  const content = html`<h1>Overview</h1>
<p class="muted">Times are UTC; the week starts on Monday.</p>
${leadTable(periods, [today, tallies])}
<h2>Refused requests this week by reason</h2>
${reasonTable(
  refusals.map((row) => refusalReasons(row.reasons)),
  refusals.length === REFUSALS_COUNTED,
)}
<h2>Callbacks this week</h2>
<table id="callback-counts"><thead><tr><th>Delivered</th><th>Failing (retrying)</th><th>Dead (gave up)</th></tr></thead>
<tbody><tr><td>${String(delivered)}</td><td>${String(failing)}</td><td>${String(dead)}</td></tr></tbody></table>
<p><a href="${portalHref("/callbacks")}">Callbacks: find and resend failed ones</a></p>`;
  return portalPage("Overview", viewer, content);
}

function leadTable(periods: Period[], tallies: { status: string; leads: number }[][]): Html {
  const rows = periods.map((period, i) => {
    const by = (status: string) => tallies[i]!.filter((row) => row.status === status).reduce((sum, row) => sum + row.leads, 0);
    const decided = by("accepted") + by("rejected");
    const rate = decided === 0 ? "—" : `${((100 * by("accepted")) / decided).toFixed(1)} %`;
    return html`<tr><th>${period.label}</th>${LEAD_STATUSES.map((status) => html`<td>${String(by(status))}</td>`)}<td>${rate}</td></tr>`;
  });
  return html`<table id="lead-counts"><thead><tr><th>Leads</th>${LEAD_STATUSES.map((status) => html`<th>${status}</th>`)}<th>Acceptance rate</th></tr></thead>
<tbody>${rows}</tbody></table>`;
}

function reasonTable(reasonLists: string[][], partial: boolean): Html {
  const counts = new Map<string, number>();
  for (const reason of reasonLists.flat()) counts.set(reason, (counts.get(reason) ?? 0) + 1);
  if (counts.size === 0) return html`<p class="muted">None.</p>`;
  const rows = [...counts].sort((a, b) => b[1] - a[1]).map(([reason, n]) => html`<tr><td>${reason}</td><td>${String(n)}</td></tr>`);
  return html`<table id="refusal-reasons"><thead><tr><th>Reason</th><th>Requests</th></tr></thead><tbody>${rows}</tbody></table>
${partial ? html`<p class="muted">Counted over the latest ${String(REFUSALS_COUNTED)} refused requests.</p>` : ""}
<p><a href="${portalHref("/refusals")}">Refused requests</a></p>`;
}
