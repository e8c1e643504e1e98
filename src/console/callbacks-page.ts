// The Callbacks page: the queue by status (dead first), a vendor and the lead's received dates
// (UTC), a page at a time by keyset (each status in the order of its own index, so any page costs
// the same; store/callbacks/search.ts). A dead or delivered callback is replayed on its row (its
// lead's action), or every one the filter selects at once after a confirmation; a dead one can be
// discarded (acknowledged). Above them, the endpoints paused after repeated failures, and when each
// is tried again. The CLI's operations, audited.
import { listVendors } from "../auth/vendors.ts";
import { CALLBACK_STATUSES, type CallbackStatus } from "../db/schema.ts";
import {
  countCallbacks,
  cursorAfter,
  discardCallback,
  listCallbacks,
  listPausedEndpoints,
  replaySelectedCallbacks,
  type CallbackFilter,
  type CallbackSummary,
  type PausedEndpointView,
} from "../operations/callbacks.ts";
import { html, type Html } from "./html.ts";
import { dayRange } from "./leads-page.ts";
import {
  actionButton,
  actorOf,
  callbackStatusText,
  csrfField,
  htmlResponse,
  layout,
  noticeBox,
  problemBox,
  redirect,
  timeText,
  type PageContext,
  type Viewer,
} from "./page.ts";

const PAGE_SIZE = 50;
/** Dead first: those are the ones an operator must act on. */
const TABS: CallbackStatus[] = ["dead", "pending", "held", "delivered"];
const REPLAYABLE: CallbackStatus[] = ["dead", "delivered"];
const FILTER_FIELDS = ["status", "vendor", "since", "until"] as const;
type FilterField = (typeof FILTER_FIELDS)[number];

interface Selection {
  /** What the operator chose, to show back and to carry to the next page and the confirmation. */
  typed: Record<FilterField, string>;
  filter: Omit<CallbackFilter, "limit" | "after"> & { status: CallbackStatus };
  problems: string[];
}

/** The filter in a Callbacks URL or form; an unusable date is a problem, and a selection with problems lists nothing. */
function parseSelection(params: URLSearchParams): Selection {
  const typed = Object.fromEntries(FILTER_FIELDS.map((field) => [field, params.get(field)?.trim() ?? ""])) as Record<FilterField, string>;
  const status = (CALLBACK_STATUSES as readonly string[]).includes(typed.status) ? (typed.status as CallbackStatus) : "dead";
  typed.status = status;
  const filter: Selection["filter"] = { status };
  const problems: string[] = [];
  if (typed.vendor) filter.vendorName = typed.vendor;
  const days = dayRange(typed, problems);
  if (days.from !== undefined) filter.receivedFrom = days.from;
  if (days.before !== undefined) filter.receivedBefore = days.before;
  return { typed, filter, problems };
}

/** The selection as URL parameters: only what was chosen. */
const paramsOf = (selection: Selection) => new URLSearchParams(Object.entries(selection.typed).filter(([, value]) => value !== ""));

/** A page's end in a URL: `AT~LEAD` (AT empty where the order is by lead alone). */
const cursorText = (cursor: { at: number | null; leadId: string }) => `${cursor.at ?? ""}~${cursor.leadId}`;
function parseCursor(text: string | null): CallbackFilter["after"] {
  const match = text ? /^(-?\d*)~([0-9a-f-]{36})$/.exec(text) : null;
  return match ? { at: match[1] ? Number(match[1]) : null, leadId: match[2]! } : undefined;
}

/** How a selection reads in a sentence: "dead callbacks of vendor-a, leads received 2026-11-01 to 2026-11-23". */
function describe({ typed }: Selection): string {
  const received = typed.since || typed.until ? `, leads received ${typed.since || "…"} to ${typed.until || "…"} (UTC)` : "";
  return `${typed.status} callbacks${typed.vendor ? ` of ${typed.vendor}` : ""}${received}`;
}

const DISCARDED = "Dead callback discarded: it no longer counts as waiting (the dead-callbacks metric and alert); Replay still sends it.";

export async function callbacksPage({ store, viewer, url, now }: PageContext): Promise<Response> {
  const selection = parseSelection(url.searchParams);
  const after = parseCursor(url.searchParams.get("after"));
  const [vendors, found, paused] = await Promise.all([
    listVendors(store),
    selection.problems.length > 0 ? [] : listCallbacks(store, { ...selection.filter, after, limit: PAGE_SIZE + 1 }),
    listPausedEndpoints(store),
  ]);
  const callbacks = found.slice(0, PAGE_SIZE);
  const replayed = url.searchParams.get("done") === "replayed" ? Number.parseInt(url.searchParams.get("count") ?? "", 10) : Number.NaN;
  const { status } = selection.filter;
  const replayAll = paramsOf(selection);
  const notice =
    url.searchParams.get("done") === "discarded"
      ? DISCARDED
      : Number.isNaN(replayed)
        ? null
        : `${replayed} callback(s) queued again, each with its webhook-id.`;
  const content = html`<h1>Callbacks</h1>
${noticeBox(notice)}
${pausedEndpointsTable(paused, now)}
<p class="tabs">${TABS.map((tab) => html`<a href="/callbacks?${new URLSearchParams({ ...selection.typed, status: tab }).toString()}"${tab === status ? html` class="current"` : ""}>${tab}</a>`)}</p>
${filterForm(
  selection,
  vendors.map((vendor) => vendor.name),
)}
${selection.problems.map((problem) => problemBox(problem))}
${REPLAYABLE.includes(status) && callbacks.length > 0 ? html`<p><a class="button" href="/callbacks/replay?${replayAll.toString()}">Replay every one of these ${status} callbacks…</a></p>` : ""}
${callbacks.length === 0 ? html`<p class="muted">No ${describe(selection)}.</p>` : callbackTable(callbacks, viewer, paramsOf(selection))}
${pager(selection, found.length > PAGE_SIZE ? cursorText(cursorAfter(selection.filter, callbacks.at(-1)!)) : null, after !== undefined)}`;
  return htmlResponse(layout("Callbacks", viewer, content));
}

function filterForm(selection: Selection, vendorNames: string[]): Html {
  const { typed } = selection;
  const option = (value: string, label: string) => html`<option value="${value}"${value === typed.vendor ? html` selected` : ""}>${label}</option>`;
  return html`<form class="filters" method="get" action="/callbacks">
<input type="hidden" name="status" value="${typed.status}">
<label>Vendor<select name="vendor">${option("", "any")}${vendorNames.map((name) => option(name, name))}</select></label>
<label>Lead received from (UTC)<input name="since" type="date" value="${typed.since}"></label>
<label>to (UTC)<input name="until" type="date" value="${typed.until}"></label>
<button type="submit">Filter</button>
<a href="/callbacks?status=${typed.status}">Clear</a>
</form>`;
}

/** The endpoints paused after repeated failures (none: nothing shown): their callbacks wait, unsent and not counted. */
function pausedEndpointsTable(paused: PausedEndpointView[], now: number): Html {
  if (paused.length === 0) return html``;
  return html`<h2>Paused endpoints</h2>
<p class="muted">The attempts of several callbacks to each of these failed in a row. Their callbacks wait, unsent and with no attempt
counted, until it is tried again: then one goes as a probe; answered, the rest follow; failed, it is paused for twice as long.</p>
<table class="paused-endpoints">
<thead><tr><th>Vendor</th><th>Endpoint</th><th>Failures in a row</th><th>Paused since</th><th>Tried again</th><th>Last error</th></tr></thead>
<tbody>${paused.map(
    (endpoint) => html`<tr>
<td>${endpoint.vendorName ?? endpoint.vendorId}</td>
<td class="mono">${endpoint.target}</td>
<td>${endpoint.failures}</td>
<td class="mono">${timeText(endpoint.pausedAt)}</td>
<td class="mono">${endpoint.pausedUntil > now ? timeText(endpoint.pausedUntil) : "with its next due callback"}</td>
<td>${endpoint.lastError ?? ""}</td>
</tr>`,
  )}</tbody>
</table>`;
}

function callbackTable(callbacks: CallbackSummary[], viewer: Viewer, selection: URLSearchParams): Html {
  const discardable = (callback: CallbackSummary) => callback.status === "dead" && callback.discarded_at === null;
  return html`<table>
<thead><tr><th>Changed</th><th>Lead</th><th>Vendor</th><th>Status</th><th>Attempts</th><th>Next attempt</th><th>Last error</th><th>URL</th><th></th></tr></thead>
<tbody>${callbacks.map(
    (callback) => html`<tr>
<td class="mono">${timeText(callback.updated_at)}</td>
<td class="mono"><a href="/leads/${encodeURIComponent(callback.lead_id)}">${callback.lead_id}</a></td>
<td>${callback.vendor}</td>
<td class="status-${callback.status}">${callbackStatusText(callback)}</td>
<td>${callback.attempt_count}</td>
<td class="mono">${timeText(callback.next_attempt_at)}</td>
<td>${callback.last_error ?? ""}</td>
<td class="mono">${callback.url}</td>
<td>${REPLAYABLE.includes(callback.status) ? actionButton(viewer, `/leads/${encodeURIComponent(callback.lead_id)}/replay`, "Replay", {}, true) : ""}${
      discardable(callback) ? actionButton(viewer, "/callbacks/discard", "Discard", { lead: callback.lead_id, back: selection.toString() }, true) : ""
    }</td>
</tr>`,
  )}</tbody>
</table>`;
}

/** "First page" back to the start; "Next page" after the last callback shown, with the same filter. */
function pager(selection: Selection, next: string | null, paged: boolean): Html {
  const params = paramsOf(selection);
  const first = `/callbacks?${params}`;
  if (next) params.set("after", next);
  return html`<p class="pager">${paged ? html`<a href="${first}">First page</a>` : ""}${next ? html`<a href="/callbacks?${params.toString()}" rel="next">Next page</a>` : ""}</p>`;
}

/** The confirmation counts this many at most: counting every delivered callback of a busy day takes a while. */
const COUNT_CAP = 10_000;

/** GET /callbacks/replay: what a replay of the selection would do, and the one button that does it. */
export async function replayConfirmation({ store, viewer, url }: PageContext): Promise<Response> {
  const selection = parseSelection(url.searchParams);
  const back = html`<a href="/callbacks?${paramsOf(selection).toString()}">Cancel</a>`;
  const refusal = !REPLAYABLE.includes(selection.filter.status) ? "Only dead or delivered callbacks can be replayed." : (selection.problems[0] ?? null);
  const selected = refusal ? 0 : await countCallbacks(store, selection.filter, COUNT_CAP + 1);
  const howMany = selected > COUNT_CAP ? `more than ${COUNT_CAP.toLocaleString("en-US")}` : selected.toLocaleString("en-US");
  const content = refusal
    ? html`<h1>Replay callbacks</h1>${problemBox(refusal)}<p>${back}</p>`
    : selected === 0
      ? html`<h1>Replay callbacks</h1><p>No ${describe(selection)}: nothing to replay.</p><p>${back}</p>`
      : html`<h1>Replay callbacks</h1>
<p>All <strong>${describe(selection)}</strong> (${howMany} in all, on every page, not only the one shown) will be queued
again: each is sent once more to its URL with its own webhook-id, as soon as the worker reaches it.</p>
<form method="post" action="/callbacks/replay" class="actions">${csrfField(viewer)}${[...paramsOf(selection)].map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`)}
<button type="submit">Replay ${howMany} callback${selected === 1 ? "" : "s"}</button> ${back}</form>`;
  return htmlResponse(layout("Callbacks", viewer, content), refusal ? 400 : 200);
}

/** POST /callbacks/replay: replays the selection the confirmation named; audited with how many. */
export async function replaySelection(context: PageContext): Promise<Response> {
  const selection = parseSelection(context.form);
  const { status } = selection.filter;
  if (!REPLAYABLE.includes(status) || selection.problems.length > 0)
    return replayConfirmation({ ...context, url: new URL(`/callbacks/replay?${paramsOf(selection)}`, context.url) });
  const filter = { ...selection.filter, status: status as "dead" | "delivered" };
  const replayed = await replaySelectedCallbacks(context.store, filter, describe(selection), actorOf(context), context.now);
  const params = paramsOf(selection);
  params.set("status", "pending");
  params.set("done", "replayed");
  params.set("count", String(replayed));
  return redirect(`/callbacks?${params}`);
}

/** POST /callbacks/discard: acknowledges one dead callback (audited), then back to the list it was on. */
export async function discardOne(context: PageContext): Promise<Response> {
  const leadId = context.form.get("lead")?.trim() ?? "";
  const outcome = await discardCallback(context.store, leadId, actorOf(context), context.now);
  const back = new URLSearchParams(context.form.get("back") ?? "");
  const params = paramsOf(parseSelection(back));
  if (outcome.kind !== "discarded") {
    const why =
      outcome.kind === "missing"
        ? "No such callback."
        : outcome.status === "dead"
          ? "That callback was discarded already."
          : `That callback is ${outcome.status}: only a dead one can be discarded.`;
    return htmlResponse(
      layout("Callbacks", context.viewer, html`<h1>Callbacks</h1>${problemBox(why)}<p><a href="/callbacks?${params.toString()}">Back</a></p>`),
      409,
    );
  }
  params.set("done", "discarded");
  return redirect(`/callbacks?${params}`);
}
