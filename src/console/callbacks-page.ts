// The Callbacks page: the queue by status, dead first; each dead or delivered one can be replayed
// (on its lead's page action), or every dead one at once. The CLI's operations, audited.
import { CALLBACK_STATUSES, type CallbackStatus } from "../db/schema.ts";
import { listCallbacks, replayDeadCallbacks, type CallbackSummary } from "../operations/callbacks.ts";
import { html, type Html } from "./html.ts";
import { actionButton, actorOf, htmlResponse, layout, noticeBox, redirect, timeText, type PageContext } from "./page.ts";

const SHOWN = 100;
/** Dead first: those are the ones an operator must act on. */
const TABS: CallbackStatus[] = ["dead", "pending", "held", "delivered"];

export async function callbacksPage({ store, viewer, url }: PageContext): Promise<Response> {
  const asked = url.searchParams.get("status");
  const status: CallbackStatus = (CALLBACK_STATUSES as readonly string[]).includes(asked ?? "") ? (asked as CallbackStatus) : "dead";
  const callbacks = await listCallbacks(store, { status, limit: SHOWN });
  const replayed = url.searchParams.get("done") === "replayed-dead" ? Number.parseInt(url.searchParams.get("count") ?? "", 10) : Number.NaN;
  const content = html`<h1>Callbacks</h1>
${noticeBox(Number.isNaN(replayed) ? null : `${replayed} dead callback(s) queued again, each with its webhook-id.`)}
<p class="tabs">${TABS.map((tab) => html`<a href="/callbacks?status=${tab}"${tab === status ? html` class="current"` : ""}>${tab}</a>`)}</p>
${status === "dead" && callbacks.length > 0 ? html`<p>${actionButton(viewer, "/callbacks/replay-dead", "Replay every dead callback")}</p>` : ""}
${callbacks.length === 0 ? html`<p class="muted">No ${status} callbacks.</p>` : callbackTable(callbacks, viewer)}
${callbacks.length === SHOWN ? html`<p class="muted">The ${SHOWN} most recently changed.</p>` : ""}`;
  return htmlResponse(layout("Callbacks", viewer, content));
}

function callbackTable(callbacks: CallbackSummary[], viewer: PageContext["viewer"]): Html {
  return html`<table>
<thead><tr><th>Changed</th><th>Lead</th><th>Vendor</th><th>Status</th><th>Attempts</th><th>Next attempt</th><th>Last error</th><th>URL</th><th></th></tr></thead>
<tbody>${callbacks.map(
    (callback) => html`<tr>
<td class="mono">${timeText(callback.updated_at)}</td>
<td class="mono"><a href="/leads/${encodeURIComponent(callback.lead_id)}">${callback.lead_id}</a></td>
<td>${callback.vendor}</td>
<td class="status-${callback.status}">${callback.status}</td>
<td>${callback.attempt_count}</td>
<td class="mono">${timeText(callback.next_attempt_at)}</td>
<td>${callback.last_error ?? ""}</td>
<td class="mono">${callback.url}</td>
<td>${callback.status === "dead" || callback.status === "delivered" ? actionButton(viewer, `/leads/${encodeURIComponent(callback.lead_id)}/replay`, "Replay", {}, true) : ""}</td>
</tr>`,
  )}</tbody>
</table>`;
}

/** POST /callbacks/replay-dead */
export async function replayEveryDead(context: PageContext): Promise<Response> {
  const replayed = await replayDeadCallbacks(context.store, null, actorOf(context), context.now);
  return redirect(`/callbacks?status=pending&done=replayed-dead&count=${replayed}`);
}
