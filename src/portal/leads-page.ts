// The portal's Leads: the vendor's own leads searched by phone (any spelling), campaign (its name as sent),
// status, real or test leads (docs/contract.md §12 "Test mode") and UTC days, newest first, fifty a page with "Older" after the last; the same search
// as CSV. The console's search (console/leads-page.ts parseSearch) with its vendor fixed to the
// signed-in one, whatever the URL says.
import { LEAD_STATUSES } from "../db/schema.ts";
import { listLeads } from "../operations/leads.ts";
import type { LeadFilter } from "../store/leads/index.ts";
import { csvDownload } from "../console/csv.ts";
import { html, type Html } from "../console/html.ts";
import { leadCsvLine, leadTable, parseSearch } from "../console/leads-page.ts";
import { problemBox } from "../console/page.ts";
import { portalHref, portalPage, type PortalContext, type PortalViewer } from "./page.ts";

const PAGE_SIZE = 50;
const EXPORT_PAGE = 1_000;
const FIELDS = ["phone", "campaign", "status", "traffic", "since", "until"] as const;

/** The vendor's search: the console's, with its vendor fixed and no id prefix (a vendor searches its own by phone). */
function vendorSearch(params: URLSearchParams, viewer: PortalViewer) {
  const own = new URLSearchParams([...params].filter(([name]) => (FIELDS as readonly string[]).includes(name) || name === "older"));
  const search = parseSearch(own);
  const filter: Omit<LeadFilter, "limit"> = { ...search.filter, vendorName: viewer.vendorName };
  if (search.typed.campaign) filter.campaign = search.typed.campaign;
  return { typed: search.typed, filter, problems: search.problems };
}

const typedQuery = (typed: Record<string, string>) =>
  new URLSearchParams(FIELDS.filter((field) => typed[field]).map((field) => [field, typed[field]!] as [string, string]));

export async function leadsPage({ store, viewer, url }: PortalContext): Promise<Response> {
  const search = vendorSearch(url.searchParams, viewer);
  const found = search.problems.length > 0 ? [] : await listLeads(store, { ...search.filter, limit: PAGE_SIZE + 1 });
  const leads = found.slice(0, PAGE_SIZE);
  const query = typedQuery(search.typed);
  const older = found.length > PAGE_SIZE ? new URLSearchParams([...query, ["older", leads.at(-1)!.id]]) : null;
  const content = html`<h1>Leads</h1>
${searchForm(search.typed, query)}
${search.problems.map((problem) => problemBox(problem))}
${leads.length === 0 ? html`<p class="muted">No leads match.</p>` : leadTable(leads, (id) => portalHref(`/leads/${encodeURIComponent(id)}`), false)}
<p class="pager">${url.searchParams.has("older") ? html`<a href="${portalHref(`/leads?${query}`)}">Newest</a>` : ""}${older ? html`<a href="${portalHref(`/leads?${older}`)}" rel="next">Older</a>` : ""}</p>`;
  return portalPage("Leads", viewer, content);
}

function searchForm(typed: Record<string, string>, query: URLSearchParams): Html {
  const option = (value: string, label: string, selected = typed.status) =>
    html`<option value="${value}"${value === selected ? html` selected` : ""}>${label}</option>`;
  return html`<form class="filters" method="get" action="${portalHref("/leads")}">
<label>Phone<input name="phone" value="${typed.phone}" placeholder="(212) 555-0123" inputmode="tel"></label>
<label>Campaign<input name="campaign" value="${typed.campaign}" placeholder="its name"></label>
<label>Status<select name="status">${option("", "any")}${LEAD_STATUSES.map((status) => option(status, status))}</select></label>
<label>Leads<select name="traffic">${option("", "real and test", typed.traffic)}${option("real", "real", typed.traffic)}${option("test", "test", typed.traffic)}</select></label>
<label>Received from (UTC)<input name="since" type="date" value="${typed.since}"></label>
<label>to (UTC)<input name="until" type="date" value="${typed.until}"></label>
<button type="submit">Search</button>
<a href="${portalHref("/leads")}">Clear</a>
<a href="${portalHref(`/leads.csv?${query}`)}">Export CSV</a>
</form>`;
}

/** The vendor's own columns: what it sent and what became of it (no vendor column: it is always the vendor). */
const CSV_COLUMNS = ["created_at", "id", "status", "rejection_reason", "phone_e164", "vendor_campaign_name", "decided_at", "callback_status", "test"] as const;

/** GET /portal/leads.csv: every lead of the vendor the search selects, newest first. */
export async function leadsCsv({ store, viewer, url }: PortalContext): Promise<Response> {
  const search = vendorSearch(url.searchParams, viewer);
  if (search.problems.length > 0)
    return new Response(`${search.problems.join("\n")}\n`, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
  let olderThan: string | undefined;
  const nextPage = async () => {
    const leads = await listLeads(store, { ...search.filter, olderThan, limit: EXPORT_PAGE });
    olderThan = leads.at(-1)?.id;
    return leads;
  };
  return csvDownload("leads.csv", CSV_COLUMNS.join(","), EXPORT_PAGE, nextPage, leadCsvLine(CSV_COLUMNS));
}
