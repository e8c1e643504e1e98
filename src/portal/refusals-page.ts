// The portal's Refused requests: the vendor's postLeads answered 400 or 422 (the refusal log,
// docs/contract.md §10), newest first, a hundred a page, by a text the reasons contain and UTC days.
// The console's search (console/refusals-page.ts) with the vendor fixed to the signed-in one.
import { html } from "../console/html.ts";
import { parseRefusalSearch, refusalTable, searchRefusals } from "../console/refusals-page.ts";
import { problemBox } from "../console/page.ts";
import { portalHref, portalPage, type PortalContext } from "./page.ts";

const PAGE_SIZE = 100;

export async function refusalsPage({ store, viewer, url }: PortalContext): Promise<Response> {
  const params = new URLSearchParams(url.searchParams);
  params.delete("vendor");
  const search = parseRefusalSearch(params, new Map());
  const filter = { ...search.filter, vendorId: viewer.vendorId };
  const found = search.problems.length > 0 ? [] : await searchRefusals(store, { ...filter, limit: PAGE_SIZE + 1 });
  const rows = found.slice(0, PAGE_SIZE);
  const query = new URLSearchParams(Object.entries(search.typed).filter(([name, value]) => name !== "vendor" && value !== ""));
  const older = found.length > PAGE_SIZE ? new URLSearchParams([...query, ["older", String(rows.at(-1)!.id)]]) : null;
  const content = html`<h1>Refused requests</h1>
<p class="muted">Your postLead requests answered 400 or 422, with each reason; phone numbers masked.</p>
<form class="filters" method="get" action="${portalHref("/refusals")}">
<label>Reason<input name="reason" value="${search.typed.reason}" placeholder="any part, any case"></label>
<label>From (UTC)<input name="since" type="date" value="${search.typed.since}"></label>
<label>to (UTC)<input name="until" type="date" value="${search.typed.until}"></label>
<button type="submit">Search</button>
<a href="${portalHref("/refusals")}">Clear</a>
</form>
${search.problems.map((problem) => problemBox(problem))}
${rows.length === 0 ? html`<p class="muted">No refused requests match.</p>` : refusalTable(rows, null)}
<p class="pager">${url.searchParams.has("older") ? html`<a href="${portalHref(`/refusals?${query}`)}">Newest</a>` : ""}${older ? html`<a href="${portalHref(`/refusals?${older}`)}" rel="next">Older</a>` : ""}</p>`;
  return portalPage("Refused requests", viewer, content);
}
