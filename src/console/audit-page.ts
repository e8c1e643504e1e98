// The Audit log page: who did what to which subject, newest first, a hundred a page. Filtered by
// actor, action and UTC days; "Older" continues below the page's last entry (a keyset on the id).
import { searchAudit, type AuditFilter, type ListedAuditEntry } from "./audit.ts";
import { html, type Html } from "./html.ts";
import { dayRange } from "./leads-page.ts";
import { htmlResponse, layout, problemBox, timeText, type PageContext } from "./page.ts";

const PAGE_SIZE = 100;
const FIELDS = ["actor", "action", "since", "until"] as const;
type Field = (typeof FIELDS)[number];

interface AuditSearch {
  typed: Record<Field, string>;
  filter: Omit<AuditFilter, "limit">;
  problems: string[];
}

export function parseAuditSearch(params: URLSearchParams): AuditSearch {
  const typed = Object.fromEntries(FIELDS.map((field) => [field, params.get(field)?.trim() ?? ""])) as Record<Field, string>;
  const problems: string[] = [];
  const days = dayRange(typed, problems);
  const filter: AuditSearch["filter"] = {};
  if (typed.actor) filter.actor = typed.actor;
  if (typed.action) filter.action = typed.action;
  if (days.from !== undefined) filter.from = days.from;
  if (days.before !== undefined) filter.before = days.before;
  const older = params.get("older");
  if (older) {
    if (/^[1-9]\d{0,15}$/.test(older)) filter.belowId = Number(older);
    else problems.push(`Not a page of the audit log: ${older}`);
  }
  return { typed, filter, problems };
}

export async function auditPage({ store, viewer, url }: PageContext): Promise<Response> {
  const search = parseAuditSearch(url.searchParams);
  const found = search.problems.length > 0 ? [] : await searchAudit(store, { ...search.filter, limit: PAGE_SIZE + 1 });
  const entries = found.slice(0, PAGE_SIZE);
  const content = html`<h1>Audit log</h1>
${filterForm(search.typed)}
${search.problems.map((problem) => problemBox(problem))}
${entries.length === 0 ? html`<p class="muted">No entries match.</p>` : entryTable(entries)}
${pager(search.typed, found.length > PAGE_SIZE ? entries.at(-1)!.id : null, url.searchParams.has("older"))}`;
  return htmlResponse(layout("Audit log", viewer, content));
}

function filterForm(typed: Record<Field, string>): Html {
  return html`<form class="filters" method="get" action="/audit">
<label>Who<input name="actor" value="${typed.actor}" placeholder="olivia or cli:deploy"></label>
<label>What<input name="action" value="${typed.action}" placeholder="vendor or vendor.disable" class="mono"></label>
<label>From (UTC)<input name="since" type="date" value="${typed.since}"></label>
<label>to (UTC)<input name="until" type="date" value="${typed.until}"></label>
<button type="submit">Filter</button>
<a href="/audit">Clear</a>
</form>`;
}

function entryTable(entries: ListedAuditEntry[]): Html {
  return html`<table>
<thead><tr><th>When</th><th>Who</th><th>What</th><th>Subject</th><th>Detail</th></tr></thead>
<tbody>${entries.map((entry) => html`<tr><td class="mono">${timeText(entry.at)}</td><td>${entry.actor}</td><td class="mono">${entry.action}</td><td class="mono">${entry.subject}</td><td>${entry.detail ?? ""}</td></tr>`)}</tbody>
</table>`;
}

/** "Newest" back to the first page; "Older" below the last entry shown, with the same filter. */
function pager(typed: Record<Field, string>, lastId: number | null, paged: boolean): Html {
  const params = new URLSearchParams(Object.entries(typed).filter(([, value]) => value !== ""));
  const newest = `/audit?${params}`;
  if (lastId !== null) params.set("older", String(lastId));
  return html`<p class="pager">${paged ? html`<a href="${newest}">Newest</a>` : ""}${lastId !== null ? html`<a href="/audit?${params.toString()}" rel="next">Older</a>` : ""}</p>`;
}
