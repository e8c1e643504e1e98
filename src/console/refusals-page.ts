// The Refusals page: every postLead answered 400 or 422 (the refusal log, refusals/), newest first,
// a hundred a page. Filtered by vendor, a text the reasons contain (any case) and UTC days; "Older"
// continues below the page's last row (a keyset on the id).
import { listVendors } from "../auth/vendors.ts";
import { op } from "../db/script.ts";
import type { Store } from "../store/index.ts";
import type { ListedRefusal, RefusalFilter } from "../store/refusals/index.ts";
import { html, type Html } from "./html.ts";
import { dayRange } from "./leads-page.ts";
import { htmlResponse, layout, problemBox, timeText, type PageContext } from "./page.ts";

const PAGE_SIZE = 100;
const FIELDS = ["vendor", "reason", "since", "until"] as const;
type Field = (typeof FIELDS)[number];
/** Longer reason texts are no use as a search and only cost the scan. */
const LONGEST_REASON_SEARCH = 200;

interface RefusalSearch {
  typed: Record<Field, string>;
  filter: Omit<RefusalFilter, "limit">;
  problems: string[];
}

/** The search in a Refusals URL; `vendorIds` maps the vendor names the form offers to their ids. */
export function parseRefusalSearch(params: URLSearchParams, vendorIds: ReadonlyMap<string, string>): RefusalSearch {
  const typed = Object.fromEntries(FIELDS.map((field) => [field, params.get(field)?.trim() ?? ""])) as Record<Field, string>;
  const problems: string[] = [];
  const days = dayRange(typed, problems);
  const filter: RefusalSearch["filter"] = {};
  if (typed.vendor) {
    const id = vendorIds.get(typed.vendor);
    if (id === undefined) problems.push(`No such vendor: ${typed.vendor}`);
    else filter.vendorId = id;
  }
  if (typed.reason.length > LONGEST_REASON_SEARCH) problems.push(`A reason to search for is at most ${LONGEST_REASON_SEARCH} characters`);
  else if (typed.reason) filter.reason = typed.reason;
  if (days.from !== undefined) filter.from = days.from;
  if (days.before !== undefined) filter.before = days.before;
  const older = params.get("older");
  if (older) {
    if (/^[1-9]\d{0,15}$/.test(older)) filter.belowId = Number(older);
    else problems.push(`Not a page of the refusal log: ${older}`);
  }
  return { typed, filter, problems };
}

/** The refusals `filter` selects, newest first. */
export async function searchRefusals(store: Store, filter: RefusalFilter): Promise<ListedRefusal[]> {
  return store.read((t) => op(t.refusals.search(filter)));
}

export async function refusalsPage({ store, viewer, url }: PageContext): Promise<Response> {
  const vendors = await listVendors(store);
  const search = parseRefusalSearch(url.searchParams, new Map(vendors.map((vendor) => [vendor.name, vendor.id])));
  const found = search.problems.length > 0 ? [] : await searchRefusals(store, { ...search.filter, limit: PAGE_SIZE + 1 });
  const rows = found.slice(0, PAGE_SIZE);
  const names = new Map(vendors.map((vendor) => [vendor.id, vendor.name]));
  const content = html`<h1>Refusals</h1>
<p class="muted">postLead requests answered 400 or 422, with their reasons; phone numbers masked.</p>
${filterForm(
  search.typed,
  vendors.map((vendor) => vendor.name),
)}
${search.problems.map((problem) => problemBox(problem))}
${rows.length === 0 ? html`<p class="muted">No refusals match.</p>` : refusalTable(rows, names)}
${pager(search.typed, found.length > PAGE_SIZE ? rows.at(-1)!.id : null, url.searchParams.has("older"))}`;
  return htmlResponse(layout("Refusals", viewer, content));
}

function filterForm(typed: Record<Field, string>, vendorNames: string[]): Html {
  const option = (value: string, label: string) => html`<option value="${value}"${value === typed.vendor ? html` selected` : ""}>${label}</option>`;
  return html`<form class="filters" method="get" action="/refusals">
<label>Vendor<select name="vendor">${option("", "any")}${vendorNames.map((name) => option(name, name))}</select></label>
<label>Reason<input name="reason" value="${typed.reason}" placeholder="any part, any case"></label>
<label>From (UTC)<input name="since" type="date" value="${typed.since}"></label>
<label>to (UTC)<input name="until" type="date" value="${typed.until}"></label>
<button type="submit">Search</button>
<a href="/refusals">Clear</a>
</form>`;
}

/** The stored JSON array of a refusal's reasons; a row that does not parse is shown as stored. */
export function refusalReasons(stored: string): string[] {
  try {
    const parsed: unknown = JSON.parse(stored);
    return Array.isArray(parsed) ? parsed.map(String) : [stored];
  } catch {
    return [stored];
  }
}

/** The refusals as a table; without `vendorNames` (the portal's: one vendor's own) no vendor column. */
export function refusalTable(rows: ListedRefusal[], vendorNames: ReadonlyMap<string, string> | null): Html {
  return html`<table id="refusals">
<thead><tr><th>When</th>${vendorNames ? html`<th>Vendor</th>` : ""}<th>Campaign</th><th>Phone</th><th>Status</th><th>Reasons</th><th>Request id</th></tr></thead>
<tbody>${rows.map(
    (row) => html`<tr>
<td class="mono">${timeText(row.at)}</td>
${vendorNames ? html`<td>${vendorNames.get(row.vendorId) ?? row.vendorId}</td>` : ""}
<td>${row.campaign ?? ""}</td>
<td class="mono">${row.phoneMasked ?? ""}</td>
<td class="mono">${String(row.status)}</td>
<td>${refusalReasons(row.reasons).map((reason) => html`<div>${reason}</div>`)}</td>
<td class="mono">${row.requestId}</td>
</tr>`,
  )}</tbody>
</table>`;
}

/** "Newest" back to the first page; "Older" below the last row shown, with the same filter. */
function pager(typed: Record<Field, string>, lastId: number | null, paged: boolean): Html {
  const params = new URLSearchParams(Object.entries(typed).filter(([, value]) => value !== ""));
  const newest = `/refusals?${params}`;
  if (lastId !== null) params.set("older", String(lastId));
  return html`<p class="pager">${paged ? html`<a href="${newest}">Newest</a>` : ""}${lastId !== null ? html`<a href="/refusals?${params.toString()}" rel="next">Older</a>` : ""}</p>`;
}
