// A lead's page in the portal: its outcome and each reason, what the vendor sent, its callback and
// every attempt (status, duration, the start of the answer) and the next try. Another vendor's lead
// is not found, as the API's lookup answers it.
import { reasonsOf } from "../contract/rejection-reasons.ts";
import { findLeadDetail, type CallbackAttempt, type LeadDetail } from "../operations/leads.ts";
import { html, type Html } from "../console/html.ts";
import { actionButton, callbackStatusText, timeText } from "../console/page.ts";
import { portalHref, portalPage, type PortalContext } from "./page.ts";
import { notFoundPage } from "./not-found.ts";

/** The lead's detail when it is the vendor's own; null for another's or none (the same answer). */
export async function ownLeadDetail(context: PortalContext, leadId: string): Promise<LeadDetail | null> {
  const detail = await findLeadDetail(context.store, leadId);
  return detail && detail.lead.vendor === context.viewer.vendorName ? detail : null;
}

export async function leadPage(context: PortalContext, leadId: string): Promise<Response> {
  const detail = await ownLeadDetail(context, leadId);
  if (!detail) return notFoundPage(context);
  const { lead, callback, attempts } = detail;
  const reasons = reasonsOf(lead.rejection_reason);
  const content = html`<h1>Lead <span class="mono">${lead.id}</span></h1>
${lead.test ? html`<p class="notice" id="test-lead">A test lead (sent with <span class="mono">X-Test-Lead: true</span>): it claimed no number and took no cap slot, was decided after the short test hold, and its callback says <span class="mono">"test": true</span>.</p>` : ""}
<table class="fields" id="outcome"><tbody>
<tr><th>Outcome</th><td class="status-${lead.status}">${lead.status}${lead.test ? " (test)" : ""}</td></tr>
<tr><th>Reasons</th><td>${reasons.length === 0 ? html`<span class="muted">none</span>` : html`<ul>${reasons.map((reason) => html`<li>${reason}</li>`)}</ul>`}</td></tr>
<tr><th>Received</th><td class="mono">${timeText(Number(lead.created_at))}</td></tr>
<tr><th>Decided</th><td class="mono">${timeText(lead.decided_at)}</td></tr>
<tr><th>Phone</th><td class="mono">${String(lead.phone_e164 ?? "")}</td></tr>
<tr><th>Campaign</th><td>${String(lead.vendor_campaign_name ?? "")}</td></tr>
</tbody></table>
<h2>Callback</h2>
${callback ? callbackSection(context, lead.id, callback, attempts) : html`<p class="muted">No call_back_url was sent with this lead.</p>`}
<h2>What you sent</h2>
<pre class="json">${String(lead.raw_request ?? "")}</pre>`;
  return portalPage("Leads", context.viewer, content);
}

function callbackSection(context: PortalContext, leadId: string, callback: NonNullable<LeadDetail["callback"]>, attempts: CallbackAttempt[]): Html {
  const resendable = callback.status === "dead" || callback.status === "delivered" || callback.status === "pending";
  return html`<table class="fields" id="callback"><tbody>
<tr><th>Status</th><td class="status-${callback.status}">${callbackStatusText(callback)}</td></tr>
<tr><th>URL</th><td class="mono">${String(callback.url ?? "")}</td></tr>
<tr><th>webhook-id</th><td class="mono">${callback.id}</td></tr>
<tr><th>Next try</th><td class="mono">${callback.status === "pending" ? timeText(Number(callback.next_attempt_at)) : "—"}</td></tr>
</tbody></table>
${resendable ? html`<p>${actionButton(context.viewer, portalHref("/callbacks/resend"), "Resend this callback", { lead: leadId })}</p>` : ""}
${attemptTable(attempts)}`;
}

export function attemptTable(attempts: CallbackAttempt[]): Html {
  if (attempts.length === 0) return html`<p class="muted">No attempt yet.</p>`;
  return html`<table id="attempts">
<thead><tr><th>#</th><th>Started</th><th>Status</th><th>Duration</th><th>Error</th><th>Start of the answer</th></tr></thead>
<tbody>${attempts.map(
    (attempt) => html`<tr>
<td>${String(attempt.attempt_no)}</td>
<td class="mono">${timeText(attempt.started_at)}</td>
<td class="mono">${attempt.status_code === null ? "—" : String(attempt.status_code)}</td>
<td>${String(attempt.duration_ms)} ms</td>
<td>${attempt.error ?? ""}</td>
<td class="mono">${attempt.response_excerpt ?? ""}</td>
</tr>`,
  )}</tbody>
</table>`;
}
