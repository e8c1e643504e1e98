// The Overview page: the last hour, day and week of leads by outcome (bars), the time from intake to
// decision, each vendor's volume and acceptance over the day, and the callback queue (pending, due,
// the oldest pending one's age, dead). Read in one snapshot; the page reloads itself every 30 s.
// Counts come from the leads' key range of each window (store/leads/search.ts), so the cost grows
// with the window's volume, not the table's: measured ~1 s for a window of 1,000,000 leads, a
// synchronous read on SQLite that holds the event loop that long. Pre-aggregated counts (per hour,
// vendor and outcome, written with each decision) would make it constant; not done yet.
import { LEAD_STATUSES, type LeadStatus } from "../db/schema.ts";
import { op, type Script } from "../db/script.ts";
import type { QueueDepth } from "../store/callbacks/index.ts";
import type { Tables } from "../store/index.ts";
import type { LeadTally } from "../store/leads/index.ts";
import { html, type Html } from "./html.ts";
import { htmlResponse, layout, timeText, type PageContext } from "./page.ts";

const REFRESH_SECONDS = 30;
const HOUR_MS = 3_600_000;
const WINDOWS = [
  { title: "Last hour", ms: HOUR_MS },
  { title: "Last day", ms: 24 * HOUR_MS },
  { title: "Last week", ms: 7 * 24 * HOUR_MS },
];
const BAR_COLOURS: Record<LeadStatus, string> = { accepted: "#067647", rejected: "#b42318", pending: "#b54708" };

interface Overview {
  windows: LeadTally[][];
  queue: QueueDepth;
  dead: number;
}

function* readOverview(t: Tables, now: number): Script<Overview> {
  const windows: LeadTally[][] = [];
  for (const window of WINDOWS) windows.push(yield* op(t.leads.tally(now - window.ms)));
  return { windows, queue: yield* op(t.callbacks.depth(now)), dead: yield* op(t.callbacks.countDead()) };
}

export async function overviewPage({ store, viewer, now }: PageContext): Promise<Response> {
  const overview = await store.read((t) => readOverview(t, now));
  const content = html`<h1>Overview</h1>
<p class="muted">Updated ${timeText(now)}; reloads every ${REFRESH_SECONDS} s.</p>
<div class="cards">${WINDOWS.map((window, i) => windowCard(window.title, overview.windows[i]!))}</div>
<h2>Callbacks</h2>
${queueTable(overview.queue, overview.dead, now)}
<h2>Vendors, last day</h2>
${vendorTable(overview.windows[1]!)}`;
  return htmlResponse(layout("Overview", viewer, content, REFRESH_SECONDS));
}

const sum = (tallies: LeadTally[], pick: (tally: LeadTally) => number) => tallies.reduce((total, tally) => total + pick(tally), 0);
const countOf = (tallies: LeadTally[], status: LeadStatus) =>
  sum(
    tallies.filter((tally) => tally.status === status),
    (tally) => tally.leads,
  );
const percent = (part: number, whole: number) => (whole === 0 ? "—" : `${Math.round((part / whole) * 1000) / 10} %`);

function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return ms < 2 * HOUR_MS ? `${Math.round(ms / 60_000)} min` : `${Math.round((ms / HOUR_MS) * 10) / 10} h`;
}

/** Leads by outcome as horizontal bars (inline SVG: no script, nothing loaded), and the mean time to decision. */
function windowCard(title: string, tallies: LeadTally[]): Html {
  const counts = LEAD_STATUSES.map((status) => ({ status, leads: countOf(tallies, status) }));
  const total = sum(tallies, (tally) => tally.leads);
  const decided = total - countOf(tallies, "pending");
  const widest = Math.max(1, ...counts.map((count) => count.leads));
  const bars = counts.map(
    ({ status, leads }, i) =>
      html`<text x="0" y="${i * 26 + 17}">${status}</text><rect x="80" y="${i * 26 + 4}" height="18" width="${Math.round((leads / widest) * 200)}" fill="${BAR_COLOURS[status]}"></rect><text x="${Math.round((leads / widest) * 200) + 86}" y="${i * 26 + 17}">${leads}</text>`,
  );
  return html`<section class="card"><h2>${title}</h2>
<p><strong>${total}</strong> leads · accepted ${percent(countOf(tallies, "accepted"), decided)} of decided · mean time to decision ${decided === 0 ? "—" : duration(sum(tallies, (tally) => tally.decisionMsTotal) / decided)}</p>
<svg class="bars" viewBox="0 0 340 80" width="340" height="80" role="img" aria-label="${title}: leads by outcome">${bars}</svg></section>`;
}

function queueTable(queue: QueueDepth, dead: number, now: number): Html {
  return html`<table class="narrow">
<tr><th>Pending</th><td>${queue.pending}</td></tr>
<tr><th>Due now</th><td>${queue.due}</td></tr>
<tr><th>Oldest pending since decision</th><td>${queue.oldestDecidedAt === null ? "—" : duration(now - queue.oldestDecidedAt)}</td></tr>
<tr><th>Dead</th><td>${dead > 0 ? html`<a href="/callbacks?status=dead" class="status-dead">${dead}</a>` : "0"}</td></tr>
</table>`;
}

function vendorTable(tallies: LeadTally[]): Html {
  const vendors = [...new Set(tallies.map((tally) => tally.vendor))].sort();
  if (vendors.length === 0) return html`<p class="muted">No leads in the last day.</p>`;
  return html`<table>
<thead><tr><th>Vendor</th><th>Leads</th><th>Accepted</th><th>Rejected</th><th>Pending</th><th>Acceptance</th></tr></thead>
<tbody>${vendors.map((vendor) => {
    const own = tallies.filter((tally) => tally.vendor === vendor);
    const [accepted, rejected, pending] = [countOf(own, "accepted"), countOf(own, "rejected"), countOf(own, "pending")];
    return html`<tr><td><a href="/leads?vendor=${encodeURIComponent(vendor)}">${vendor}</a></td><td>${accepted + rejected + pending}</td><td>${accepted}</td><td>${rejected}</td><td>${pending}</td><td>${percent(accepted, accepted + rejected)}</td></tr>`;
  })}</tbody>
</table>`;
}
