// The portal's Callbacks: the vendor's dead ones first (most recently died first), then those failing
// and retrying (next try first), then the latest delivered. Resend one (a dead or delivered one is
// queued again with a fresh schedule and the same webhook-id; a retrying one is tried now), or every
// dead one of leads received since a time, after a page that says how many. The operator's
// functions (operations/callbacks.ts), audited as the vendor; another vendor's callback is not found.
import { countCallbacks, listCallbacks, replayCallback, replaySelectedCallbacks, retryCallbackNow, type CallbackSummary } from "../operations/callbacks.ts";
import { html, type Html } from "../console/html.ts";
import { actionButton, callbackStatusText, csrfField, noticeBox, problemBox, redirect, timeText } from "../console/page.ts";
import { dayRange } from "../console/leads-page.ts";
import { ownLeadDetail } from "./lead-page.ts";
import { notFoundPage } from "./not-found.ts";
import { portalHref, portalPage, type PortalContext } from "./page.ts";
import { portalActor } from "../portal-access/sessions.ts";

const SHOWN = 50;
/** Callbacks counted for a resend's confirmation at most; the resend itself takes them all. */
const COUNTED = 100_000;

const NOTICES: Record<string, string> = {
  resent: "The callback is queued: it is sent within a few seconds.",
  "resent-all": "The failed callbacks are queued again.",
  none: "There was nothing to resend.",
};

export async function callbacksPage(context: PortalContext): Promise<Response> {
  const { store, viewer, url } = context;
  const list = (status: "dead" | "pending" | "delivered") => listCallbacks(store, { vendorName: viewer.vendorName, status, limit: SHOWN });
  const [dead, pending, delivered] = await Promise.all([list("dead"), list("pending"), list("delivered")]);
  const notice = NOTICES[url.searchParams.get("done") ?? ""] ?? null;
  const content = html`<h1>Callbacks</h1>
${noticeBox(notice)}
<form class="filters" method="get" action="${portalHref("/callbacks/resend-failed")}">
<label>Resend every dead callback of leads received from (UTC)<input name="since" type="date" required></label>
<button type="submit">Count them</button>
</form>
<h2>Dead (gave up)</h2>
${callbackTable(context, dead, "dead")}
<h2>Failing (retrying)</h2>
${callbackTable(context, pending, "pending")}
<h2>Delivered lately</h2>
${callbackTable(context, delivered, "delivered")}`;
  return portalPage("Callbacks", viewer, content);
}

function callbackTable(context: PortalContext, callbacks: CallbackSummary[], id: string): Html {
  if (callbacks.length === 0) return html`<p class="muted">None.</p>`;
  return html`<table id="callbacks-${id}">
<thead><tr><th>Lead</th><th>Status</th><th>Attempts</th><th>Last error</th><th>Next try</th><th>URL</th><th></th></tr></thead>
<tbody>${callbacks.map(
    (callback) => html`<tr>
<td class="mono"><a href="${portalHref(`/leads/${encodeURIComponent(callback.lead_id)}`)}">${callback.lead_id}</a></td>
<td class="status-${callback.status}">${callbackStatusText(callback)}</td>
<td>${String(callback.attempt_count)}</td>
<td>${callback.last_error ?? ""}</td>
<td class="mono">${callback.status === "pending" ? timeText(callback.next_attempt_at) : "—"}</td>
<td class="mono">${callback.url}</td>
<td>${actionButton(context.viewer, portalHref("/callbacks/resend"), "Resend", { lead: callback.lead_id })}</td>
</tr>`,
  )}</tbody>
</table>`;
}

/** POST /portal/callbacks/resend (lead): the vendor's own callback, resent; another's is not found. */
export async function resendOne(context: PortalContext): Promise<Response> {
  const detail = await ownLeadDetail(context, context.form.get("lead") ?? "");
  if (!detail?.callback) return notFoundPage(context);
  const actor = portalActor(context.viewer.vendorName);
  const leadId = detail.lead.id;
  const outcome =
    detail.callback.status === "pending"
      ? await retryCallbackNow(context.store, leadId, actor, context.now)
      : await replayCallback(context.store, leadId, actor, context.now);
  const done = outcome.kind === "replayed" || outcome.kind === "retried" ? "resent" : "none";
  return redirect(portalHref(`/callbacks?done=${done}`));
}

/** The UTC day typed as `since`, as its start; null with a problem when it is none. */
function sinceOf(params: URLSearchParams): { since: number | null; problems: string[] } {
  const problems: string[] = [];
  const since = dayRange({ since: params.get("since")?.trim() ?? "", until: "" }, problems).from ?? null;
  if (since === null && problems.length === 0) problems.push("Say from which day (UTC).");
  return { since, problems };
}

const failedSince = (context: PortalContext, since: number) => ({ vendorName: context.viewer.vendorName, status: "dead" as const, receivedFrom: since });

/** GET /portal/callbacks/resend-failed?since=DAY: how many would be resent, and the button. */
export async function resendFailedConfirmation(context: PortalContext): Promise<Response> {
  const { since, problems } = sinceOf(context.url.searchParams);
  const count = since === null ? 0 : await countCallbacks(context.store, failedSince(context, since), COUNTED);
  const typed = context.url.searchParams.get("since") ?? "";
  const content =
    since === null
      ? problems.map((problem) => problemBox(problem))
      : html`<h1>Resend failed callbacks</h1>
<p id="resend-count">${String(count)}${count === COUNTED ? "+" : ""} dead callbacks of leads received since ${timeText(since)}.</p>
${
  count === 0
    ? html`<p><a href="${portalHref("/callbacks")}">Back to callbacks</a></p>`
    : html`<form method="post" action="${portalHref("/callbacks/resend-failed")}">${csrfField(context.viewer)}<input type="hidden" name="since" value="${typed}"><button type="submit">Resend ${String(count)}</button> <a href="${portalHref("/callbacks")}">Cancel</a></form>`
}`;
  return portalPage("Callbacks", context.viewer, html`${content}`, since === null ? 400 : 200);
}

/** POST /portal/callbacks/resend-failed (since): every dead callback of the vendor's leads received since then, queued again. */
export async function resendFailed(context: PortalContext): Promise<Response> {
  const { since, problems } = sinceOf(context.form);
  if (since === null) return portalPage("Callbacks", context.viewer, html`${problems.map((problem) => problemBox(problem))}`, 400);
  const actor = portalActor(context.viewer.vendorName);
  const queued = await replaySelectedCallbacks(
    context.store,
    failedSince(context, since),
    `dead callbacks of ${context.viewer.vendorName}`,
    actor,
    context.now,
  );
  return redirect(portalHref(`/callbacks?done=${queued > 0 ? "resent-all" : "none"}`));
}
