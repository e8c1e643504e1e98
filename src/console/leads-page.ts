// The Leads page: search by phone (any spelling), id prefix, vendor, campaign (any part of its name, in
// any case: operations/campaign-search.ts), status and dates (UTC), newest first, fifty a page; "Older" continues after the page's last lead (a keyset, not an offset, so a
// page costs the same at any depth). The same search exports as CSV, streamed page by page.
import { reasonsText } from "../contract/rejection-reasons.ts";
import { listVendors } from "../auth/vendors.ts";
import { LEAD_STATUSES, type LeadStatus } from "../db/schema.ts";
import { checkPhoneNumber } from "../intake/phone.ts";
import { CAMPAIGNS_MATCHED_MAX, CAMPAIGN_NAMES_WALKED, listLeadsOfCampaigns, matchCampaigns } from "../operations/campaign-search.ts";
import type { LeadSummary } from "../operations/leads.ts";
import type { Store } from "../store/index.ts";
import type { LeadFilter } from "../store/leads/index.ts";
import { idPrefixRange } from "../store/leads/search.ts";
import { csvCell, csvDownload } from "./csv.ts";
import { html, type Html } from "./html.ts";
import { htmlResponse, layout, problemBox, timeText, type PageContext } from "./page.ts";

const PAGE_SIZE = 50;
const DAY_MS = 86_400_000;
const SEARCH_FIELDS = ["phone", "lead", "vendor", "campaign", "status", "traffic", "since", "until"] as const;
/** Which leads by test mode (docs/contract.md §12): "" both, "real" or "test" only. */
const TRAFFIC = { real: false, test: true } as const;
type SearchField = (typeof SEARCH_FIELDS)[number];

interface Search {
  /** What the operator typed, to show back in the form. */
  typed: Record<SearchField, string>;
  filter: Omit<LeadFilter, "limit">;
  problems: string[];
  /** The campaigns whose names contain what was typed (undefined: no campaign typed); see withCampaigns. */
  campaigns?: string[];
  notes: string[];
}

function utcDay(text: string): number | null {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Number.NaN;
  return Number.isNaN(day) ? null : day;
}

/**
 * The UTC days typed as "since" and "until" (YYYY-MM-DD, either may be empty) as times: from the
 * first day's start, before the end of the last. Each unusable one is pushed to `problems`.
 */
export function dayRange(typed: { since: string; until: string }, problems: string[]): { from?: number; before?: number } {
  const range: { from?: number; before?: number } = {};
  for (const field of ["since", "until"] as const) {
    if (!typed[field]) continue;
    const day = utcDay(typed[field]);
    if (day === null) problems.push(`Not a date (YYYY-MM-DD): ${typed[field]}`);
    else if (field === "since") range.from = day;
    else range.before = day + DAY_MS;
  }
  return range;
}

/** The search in a Leads URL; each unusable value is a problem, and a search with problems lists nothing. */
export function parseSearch(params: URLSearchParams): Search {
  const typed = Object.fromEntries(SEARCH_FIELDS.map((field) => [field, params.get(field)?.trim() ?? ""])) as Record<SearchField, string>;
  const filter: Search["filter"] = {};
  const problems: string[] = [];
  if (typed.phone) {
    const phone = checkPhoneNumber(typed.phone);
    if (phone.ok) filter.phoneE164 = phone.e164;
    else problems.push(`Not a US phone number: ${typed.phone}`);
  }
  if (typed.lead) {
    if (idPrefixRange(typed.lead)) filter.idPrefix = typed.lead;
    else problems.push(`A lead id (or its beginning) is hexadecimal digits and dashes: ${typed.lead}`);
  }
  if (typed.vendor) filter.vendorName = typed.vendor;
  if (typed.status) {
    if ((LEAD_STATUSES as readonly string[]).includes(typed.status)) filter.status = typed.status as LeadStatus;
    else problems.push(`Unknown status: ${typed.status}`);
  }
  if (typed.traffic) {
    if (Object.hasOwn(TRAFFIC, typed.traffic)) filter.test = TRAFFIC[typed.traffic as keyof typeof TRAFFIC];
    else problems.push(`Unknown kind of lead (real or test): ${typed.traffic}`);
  }
  const days = dayRange(typed, problems);
  if (days.from !== undefined) filter.createdFrom = days.from;
  if (days.before !== undefined) filter.createdBefore = days.before;
  const older = params.get("older");
  if (older) filter.olderThan = older;
  return { typed, filter, problems, notes: [] };
}

/** The search with the campaigns its typed campaign matches; too many matches is a problem. */
async function withCampaigns(store: Store, search: Search): Promise<Search> {
  if (!search.typed.campaign || search.problems.length > 0) return search;
  const match = await matchCampaigns(store, search.typed.campaign);
  const problems = match.tooMany ? [`More than ${CAMPAIGNS_MATCHED_MAX} campaigns contain "${search.typed.campaign}": type more of the name.`] : [];
  const notes = match.partial
    ? [`Only the first ${CAMPAIGN_NAMES_WALKED.toLocaleString("en-US")} campaign names (in order) were searched; others match when typed exactly.`]
    : [];
  return { ...search, campaigns: match.names, problems, notes };
}

/** A page of the search's leads, newest first. */
const searchedLeads = (store: Store, search: Search, page: Pick<LeadFilter, "limit" | "olderThan">) =>
  listLeadsOfCampaigns(store, { ...search.filter, ...page }, search.campaigns);

export async function leadsPage({ store, viewer, url }: PageContext): Promise<Response> {
  const search = await withCampaigns(store, parseSearch(url.searchParams));
  const [vendors, found] = await Promise.all([listVendors(store), search.problems.length > 0 ? [] : searchedLeads(store, search, { limit: PAGE_SIZE + 1 })]);
  const leads = found.slice(0, PAGE_SIZE);
  const content = html`<h1>Leads</h1>
${searchForm(
  search.typed,
  vendors.map((vendor) => vendor.name),
)}
${search.problems.map((problem) => problemBox(problem))}
${search.notes.map((note) => html`<p class="muted">${note}</p>`)}
${leads.length === 0 ? html`<p class="muted">No leads match.</p>` : leadTable(leads)}
${pager(search, found.length > PAGE_SIZE ? leads.at(-1)!.id : null, url.searchParams.has("older"))}`;
  return htmlResponse(layout("Leads", viewer, content));
}

function searchForm(typed: Record<SearchField, string>, vendorNames: string[]): Html {
  const option = (value: string, label: string, selected: string) =>
    html`<option value="${value}"${value === selected ? html` selected` : ""}>${label}</option>`;
  return html`<form class="filters" method="get" action="/leads">
<label>Phone<input name="phone" value="${typed.phone}" placeholder="(212) 555-0123" inputmode="tel"></label>
<label>Lead id<input name="lead" value="${typed.lead}" placeholder="0193a5c2-…" class="mono"></label>
<label>Vendor<select name="vendor">${option("", "any", typed.vendor)}${vendorNames.map((name) => option(name, name, typed.vendor))}</select></label>
<label>Campaign<input name="campaign" value="${typed.campaign}" placeholder="any part, any case"></label>
<label>Status<select name="status">${option("", "any", typed.status)}${LEAD_STATUSES.map((status) => option(status, status, typed.status))}</select></label>
<label>Leads<select name="traffic">${option("", "real and test", typed.traffic)}${option("real", "real", typed.traffic)}${option("test", "test", typed.traffic)}</select></label>
<label>Received from (UTC)<input name="since" type="date" value="${typed.since}"></label>
<label>to (UTC)<input name="until" type="date" value="${typed.until}"></label>
<button type="submit">Search</button>
<a href="/leads">Clear</a>
<a href="/leads.csv?${new URLSearchParams(Object.entries(typed).filter(([, value]) => value !== "")).toString()}">Export CSV</a>
</form>`;
}

/** The leads as a table; `leadHref` links each to its page. Without `vendor` (the portal's: one vendor's own) no vendor column. */
export function leadTable(leads: LeadSummary[], leadHref = (id: string) => `/leads/${encodeURIComponent(id)}`, vendor = true): Html {
  return html`<table id="leads">
<thead><tr><th>Received</th><th>Lead</th><th>Status</th><th>Reason</th>${vendor ? html`<th>Vendor</th>` : ""}<th>Phone</th><th>Campaign</th><th>Callback</th></tr></thead>
<tbody>${leads.map(
    (lead) => html`<tr>
<td class="mono">${timeText(lead.created_at)}</td>
<td class="mono"><a href="${leadHref(lead.id)}">${lead.id}</a></td>
<td class="status-${lead.status}">${lead.status}${lead.test ? html` <strong class="muted" title="A test lead (X-Test-Lead): it claimed no number and took no cap slot">test</strong>` : ""}</td>
<td>${reasonsText(lead.rejection_reason)}</td>
${vendor ? html`<td>${lead.vendor}</td>` : ""}
<td class="mono">${lead.phone_e164}</td>
<td>${lead.vendor_campaign_name}</td>
<td${lead.callback_status ? html` class="status-${lead.callback_status}"` : ""}>${lead.callback_status ?? "none"}</td>
</tr>`,
  )}</tbody>
</table>`;
}

/** "Newest" back to the first page; "Older" after the last lead shown, with the same search. */
function pager(search: Search, lastId: string | null, paged: boolean): Html {
  const params = new URLSearchParams(Object.entries(search.typed).filter(([, value]) => value !== ""));
  const newest = `/leads?${params}`;
  if (lastId) params.set("older", lastId);
  return html`<p class="pager">${paged ? html`<a href="${newest}">Newest</a>` : ""}${lastId ? html`<a href="/leads?${params.toString()}" rel="next">Older</a>` : ""}</p>`;
}

/** Rows read per query of an export: a page of the same keyset walk the list uses. */
const EXPORT_PAGE = 1_000;
const CSV_COLUMNS = [
  "created_at",
  "id",
  "status",
  "rejection_reason",
  "vendor",
  "phone_e164",
  "vendor_campaign_name",
  "decided_at",
  "callback_status",
  "test",
] as const;

/** A lead's CSV line of `columns`, times in ISO 8601. */
export function leadCsvLine(columns: readonly (keyof LeadSummary)[]): (lead: LeadSummary) => string {
  const at = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());
  const cell = (lead: LeadSummary, column: keyof LeadSummary) =>
    column === "created_at" || column === "decided_at" ? at(lead[column]) : column === "test" ? String(lead.test) : lead[column];
  return (lead) => `${columns.map((column) => csvCell(cell(lead, column))).join(",")}\r\n`;
}

/** GET /leads.csv: every lead the search selects (not only a page), newest first. */
export async function leadsCsv({ store, url }: PageContext): Promise<Response> {
  const search = await withCampaigns(store, parseSearch(url.searchParams));
  if (search.problems.length > 0)
    return new Response(`${search.problems.join("\n")}\n`, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
  let olderThan: string | undefined;
  const nextPage = async () => {
    const leads = await searchedLeads(store, search, { olderThan, limit: EXPORT_PAGE });
    olderThan = leads.at(-1)?.id;
    return leads;
  };
  return csvDownload("leads.csv", CSV_COLUMNS.join(","), EXPORT_PAGE, nextPage, leadCsvLine(CSV_COLUMNS));
}
