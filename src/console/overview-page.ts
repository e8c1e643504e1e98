// The Overview page: over the last hour, day or week, leads by outcome (postLead's answers, 401,
// 429, final results), accepted leads by vendor, the time from intake to decision, callback
// deliveries by result and their latency, and the callback queue now. Read from the rollup
// (stats/series.ts): a bounded number of rows whatever the volume of leads, where counting the
// leads themselves took ~1 s for a window of 1,000,000 (a synchronous read on SQLite, holding the
// event loop). The numbers are tables in the page; the charts are drawn by uPlot from
// /overview.json by a script of ours (assets/overview.mjs), which fetches it again every
// REFRESH_SECONDS; without script the tables remain, and the page reloads itself.
import { CALLBACK_KINDS, DECISION_KINDS, INTAKE_KINDS, KIND_LABELS, type OutcomeKind } from "../stats/kinds.ts";
import { readOverview, WINDOWS, windowNamed, type Overview, type WindowName } from "../stats/series.ts";
import { html, type Html } from "./html.ts";
import { htmlResponse, layout, timeText, type PageContext } from "./page.ts";

const REFRESH_SECONDS = 15;
const HOUR_MS = 3_600_000;

const read = ({ store, url, now }: PageContext): Promise<Overview> =>
  Promise.resolve(store.read((t) => readOverview(t, windowNamed(url.searchParams.get("window")), now)));

/**
 * The text of each number the page shows, by its cell's `data-cell` name: the page's tables and the
 * script's refresh of them (from /overview.json) write the same texts.
 */
function cellTexts(overview: Overview): Record<string, string> {
  const { totals, queue } = overview;
  const meanText = (mean: number | null, msPerUnit: number) => (mean === null ? "—" : duration(mean * msPerUnit));
  return {
    ...Object.fromEntries(Object.entries(totals).map(([kind, count]) => [`total:${kind}`, String(count)])),
    ...Object.fromEntries(overview.vendors.map((vendor) => [`vendor:${vendor.kind}`, String(sum(vendor.values))])),
    "mean:decision": meanText(overview.decisionSeconds.mean, 1000),
    "mean:callback": meanText(overview.callbackMs.mean, 1),
    "queue:pending": String(queue.pending),
    "queue:due": String(queue.due),
    "queue:oldest": queue.oldestPendingSeconds === null ? "—" : duration(queue.oldestPendingSeconds * 1000),
    "queue:dead": String(queue.dead),
  };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

/** GET /overview.json?window=hour|day|week: what the charts draw, and the tables' texts. */
export async function overviewJson(context: PageContext): Promise<Response> {
  const overview = await read(context);
  return Response.json({ ...overview, cells: cellTexts(overview) }, { headers: { "cache-control": "no-store" } });
}

export async function overviewPage(context: PageContext): Promise<Response> {
  const overview = await read(context);
  const cells = cellTexts(overview);
  const content = html`<h1>Overview</h1>
${windowTabs(overview.window)}
<p class="muted">Updated <span data-updated>${timeText(context.now)}</span>; refreshes every ${REFRESH_SECONDS} s.</p>
<div id="overview" data-source="/overview.json?window=${overview.window}" data-refresh-seconds="${REFRESH_SECONDS}">
${panel("Leads by outcome", "outcomes", totalsTable([...INTAKE_KINDS, ...DECISION_KINDS], cells))}
${panel("Accepted leads by vendor", "vendors", vendorsTable(overview, cells))}
${panel("Time from intake to decision", "decisionSeconds", numbersTable([["Mean time to decision", "mean:decision"]], cells))}
${panel("Callback deliveries", "callbacks", totalsTable(CALLBACK_KINDS, cells))}
${panel("Callback latency", "callbackMs", numbersTable([["Mean attempt duration", "mean:callback"]], cells))}
<section class="panel"><h2>Callback queue</h2>${numbersTable(QUEUE_ROWS, cells)}<p><a href="/callbacks?status=dead">Dead callbacks</a></p></section>
</div>
<link rel="stylesheet" href="/assets/uplot.css"><link rel="stylesheet" href="/assets/overview.css">
<script src="/assets/uplot.js" defer></script><script type="module" src="/assets/overview.mjs"></script>
<noscript><meta http-equiv="refresh" content="${REFRESH_SECONDS}"></noscript>`;
  return htmlResponse(layout("Overview", context.viewer, content));
}

function windowTabs(current: WindowName): Html {
  return html`<nav class="tabs">${(Object.keys(WINDOWS) as WindowName[]).map(
    (name) => html`<a href="/overview?window=${name}"${name === current ? html` class="current" aria-current="page"` : ""}>${WINDOWS[name].title}</a>`,
  )}</nav>`;
}

/** A chart (drawn by the script into the empty div) above its numbers. */
const panel = (title: string, chart: string, numbers: Html): Html =>
  html`<section class="panel"><h2>${title}</h2><div class="chart" data-chart="${chart}"></div>${numbers}</section>`;

const QUEUE_ROWS: [string, string][] = [
  ["Pending", "queue:pending"],
  ["Due now", "queue:due"],
  ["Oldest pending since decision", "queue:oldest"],
  ["Dead", "queue:dead"],
];

const numberRows = (rows: [title: string, cell: string][], cells: Record<string, string>): Html[] =>
  rows.map(([title, cell]) => html`<tr><th>${title}</th><td data-cell="${cell}">${cells[cell]}</td></tr>`);

/** Rows of a title and a number, each in the cell the script refreshes. */
const numbersTable = (rows: [title: string, cell: string][], cells: Record<string, string>): Html =>
  html`<table class="narrow"><tbody>${numberRows(rows, cells)}</tbody></table>`;

const totalsTable = (kinds: readonly OutcomeKind[], cells: Record<string, string>): Html =>
  numbersTable(
    kinds.map((kind) => [KIND_LABELS[kind], `total:${kind}`]),
    cells,
  );

const NO_VENDORS = "No leads accepted in this window.";

/** Rebuilt by the script on each refresh (vendors come and go), from the same cells; `data-vendors` holds the text for none. */
function vendorsTable(overview: Overview, cells: Record<string, string>): Html {
  const rows = overview.vendors.map((vendor): [string, string] => [vendor.label, `vendor:${vendor.kind}`]);
  return html`<table class="narrow"><tbody data-vendors="${NO_VENDORS}">${rows.length === 0 ? html`<tr><td>${NO_VENDORS}</td></tr>` : numberRows(rows, cells)}</tbody></table>`;
}

function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 120_000) return `${Math.round(ms / 100) / 10} s`;
  return ms < 2 * HOUR_MS ? `${Math.round(ms / 60_000)} min` : `${Math.round((ms / HOUR_MS) * 10) / 10} h`;
}
