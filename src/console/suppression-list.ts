// The suppression list on the Suppression page: its numbers in order, a hundred a page, those
// starting with what the operator typed (a run of digits, any spelling), and the same selection as
// a CSV download. Pages are ranges of the list's key (store/suppressions/range.ts): "Next"
// continues after the page's last number, and the export reads a thousand at a time as the client
// takes them, so neither depends on the list's size.
import { op } from "../db/script.ts";
import type { Suppression, SuppressionRange } from "../store/suppressions/index.ts";
import { csvCell, csvDownload } from "./csv.ts";
import { html, type Html } from "./html.ts";
import { problemBox, timeText, type PageContext } from "./page.ts";

const PAGE_SIZE = 100;
const EXPORT_PAGE = 1_000;

/**
 * The E.164 numbers that start with what was typed, as a range of keys; null when it holds no digit
 * or what it holds cannot begin a US number. A US area code never starts with 1, so a leading 1 is
 * the country code: "212-555" and "1 212 555" are both +1212555….
 */
export function numberPrefixRange(typed: string): { from: string; before: string } | null {
  const digits = typed.replace(/[\s().+-]/g, "");
  if (!/^\d{1,11}$/.test(digits)) return null;
  const national = digits.startsWith("1") ? digits.slice(1) : digits;
  if (national.length > 10 || /^[01]/.test(national)) return null;
  const prefix = `+1${national}`;
  // The next prefix of as many digits (+1212555 → +1212556): digits only, so it orders the same
  // under any collation; +1 alone (all nines carry) is bounded by +2.
  const next = national === "" ? "2" : String(BigInt(national) + 1n).padStart(national.length, "0");
  return { from: prefix, before: next.length > national.length || national === "" ? "+2" : `+1${next}` };
}

interface ListSearch {
  typed: string;
  range: Omit<SuppressionRange, "limit"> | null;
}

function parseListSearch(params: URLSearchParams): ListSearch {
  const typed = params.get("starts")?.trim() ?? "";
  const prefix = typed ? numberPrefixRange(typed) : undefined;
  if (prefix === null) return { typed, range: null };
  const after = params.get("after") ?? undefined;
  return { typed, range: { ...prefix, ...(after ? { after } : {}) } };
}

const readPage = async (context: PageContext, range: SuppressionRange): Promise<Suppression[]> =>
  await context.store.read((t) => op(t.suppressions.page(range)));

/** The list's section of the Suppression page. */
export async function suppressionList(context: PageContext): Promise<Html> {
  const search = parseListSearch(context.url.searchParams);
  const found = search.range ? await readPage(context, { ...search.range, limit: PAGE_SIZE + 1 }) : [];
  const entries = found.slice(0, PAGE_SIZE);
  const params = new URLSearchParams(search.typed ? { starts: search.typed } : {});
  const next =
    found.length > PAGE_SIZE ? `/suppression?${new URLSearchParams({ ...Object.fromEntries(params), after: entries.at(-1)!.phoneE164 })}#list` : null;
  return html`<h2 id="list">The list</h2>
<form class="filters" method="get" action="/suppression#list">
<label>Numbers starting with<input name="starts" value="${search.typed}" placeholder="212 555" inputmode="tel"></label>
<button type="submit">List</button>
<a href="/suppression#list">All</a>
<a href="/suppression.csv${params.size > 0 ? `?${params}` : ""}">Export CSV</a>
</form>
${search.range === null ? problemBox(`Not the beginning of a US phone number: ${search.typed}`) : ""}
${
  entries.length === 0
    ? html`<p class="muted">${search.typed ? "No listed number starts so." : "The list is empty."}</p>`
    : html`<table class="narrow">
<thead><tr><th>Number</th><th>Reason</th><th>Listed since</th></tr></thead>
<tbody>${entries.map((entry) => html`<tr><td class="mono">${entry.phoneE164}</td><td>${entry.reason ?? ""}</td><td class="mono">${timeText(entry.createdAt)}</td></tr>`)}</tbody>
</table>`
}
<p class="pager">${context.url.searchParams.has("after") ? html`<a href="/suppression?${params.toString()}#list">First</a>` : ""}${next ? html`<a href="${next}" rel="next">Next</a>` : ""}</p>`;
}

/** GET /suppression.csv: every listed number the search selects, in order. */
export async function suppressionCsv(context: PageContext): Promise<Response> {
  const { typed, range } = parseListSearch(context.url.searchParams);
  if (range === null)
    return new Response(`Not the beginning of a US phone number: ${typed}\n`, { status: 400, headers: { "content-type": "text/plain; charset=utf-8" } });
  let after: string | undefined;
  const nextPage = async () => {
    const entries = await readPage(context, { ...range, ...(after ? { after } : {}), limit: EXPORT_PAGE });
    after = entries.at(-1)?.phoneE164;
    return entries;
  };
  const line = (entry: Suppression) => `${[entry.phoneE164, entry.reason, new Date(entry.createdAt).toISOString()].map(csvCell).join(",")}\r\n`;
  return csvDownload("suppression-list.csv", "phone_e164,reason,created_at", EXPORT_PAGE, nextPage, line);
}
