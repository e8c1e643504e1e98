// One lead: what happened to it (received, each operator decision with who made it and when, the
// final result with its reason, each callback attempt), its stored fields, the raw request, and the
// operator's actions: decide during the hold, send a pending callback now, replay a dead or
// delivered one. The actions are the CLI's operations (final-results/operator.ts,
// operations/callbacks.ts), audited. Stored values are shown within a budget (json-view.ts): a lead
// stored before the body's nesting limit can hold JSON of any depth.
import { reasonsText } from "../contract/rejection-reasons.ts";
import { TIME_COLUMN } from "../db/schema.ts";
import { DecisionError, recordOperatorDecision } from "../final-results/operator.ts";
import { retryCallbackNow, replayCallback } from "../operations/callbacks.ts";
import { findLeadDetail, type CallbackAttempt, type LeadDetail } from "../operations/leads.ts";
import { evidenceFields, evidenceView } from "../certificates/index.ts";
import type { AuditEntry } from "./audit.ts";
import { redirectWithNotice, takeNotice } from "./flash.ts";
import { html, type Html } from "./html.ts";
import { clipped, FIELD_CHARS, indentedJson, viewText } from "./json-view.ts";
import {
  actionButton,
  actorOf,
  callbackStatusText,
  csrfField,
  htmlResponse,
  layout,
  noticeBox,
  problemBox,
  timeText,
  type PageContext,
  type Viewer,
} from "./page.ts";

/** What a finished action says on the page it returns to, once (flash.ts): fixed texts, never echoed input. */
const NOTICES: Record<string, string> = {
  decided: "Decision recorded: it is applied when the hold period ends.",
  retried: "The callback is due now: the worker sends it at its next poll.",
  replayed: "The callback is queued again, with the same webhook-id.",
};

/** The columns of the service's own bookkeeping (the worker's lease on a pending lead; the campaign as final checks' scopes compare it, derived from vendor_campaign_name): not shown. */
const INTERNAL_COLUMNS = new Set(["claim_token", "locked_until", "campaign_folded"]);
/** The raw request's view, indented: a lead taken under the default body limit fits whole. */
const RAW_REQUEST_CHARS = 128 * 1024;

const leadPath = (leadId: string) => `/leads/${encodeURIComponent(leadId)}`;

export async function leadPage(context: PageContext, leadId: string, problem: string | null = null): Promise<Response> {
  const { viewer } = context;
  const detail = await findLeadDetail(context.store, leadId);
  if (!detail) return htmlResponse(layout("Lead", viewer, html`<h1>Lead</h1>${problemBox(`No such lead: ${leadId}`)}`), 404);
  const { notice, headers } = problem ? { notice: null, headers: {} } : takeNotice(context, leadPath(leadId), leadId, NOTICES);
  const { lead } = detail;
  const content = html`<h1>Lead <span class="mono">${lead.id}</span></h1>
${noticeBox(notice)}${problemBox(problem)}
${summary(detail)}
${actions(detail, viewer)}
<h2>Timeline</h2>
${timeline(detail)}
${certificateSection(detail)}
${checksSection(detail)}
<h2>Fields</h2>
${fieldsTable(detail)}
<h2>Raw request</h2>
<pre class="mono">${viewText(indentedJson(String(lead.raw_request), RAW_REQUEST_CHARS))}</pre>`;
  return htmlResponse(layout("Lead", viewer, content), problem ? 409 : 200, headers);
}

function summary({ lead, callback }: LeadDetail): Html {
  const rows: [string, Html | string][] = [
    ["Status", html`<span class="status-${lead.status}">${lead.status}</span>`],
    ["Reason", reasonsText(lead.rejection_reason) || "—"],
    ["Vendor", lead.vendor],
    ["Phone", String(lead.phone_e164)],
    ["Campaign", String(lead.vendor_campaign_name)],
    ["Received", timeText(Number(lead.created_at))],
    ["Hold ends", timeText(lead.decide_after)],
    ["Decided", timeText(lead.decided_at)],
    [
      "Callback",
      callback
        ? html`<span class="status-${callback.status}">${callbackStatusText(callback)}</span> to <span class="mono">${String(callback.url)}</span>`
        : "none (no call_back_url)",
    ],
  ];
  return html`<table>${rows.map(([name, value]) => html`<tr><th>${name}</th><td>${value}</td></tr>`)}</table>`;
}

function actions({ lead, callback }: LeadDetail, viewer: Viewer): Html {
  const path = leadPath(lead.id);
  const forms: Html[] = [];
  if (lead.status === "pending") {
    forms.push(html`<form method="post" action="${path}/decide">${csrfField(viewer)}
<label>Decision<select name="decision"><option value="accept">accept</option><option value="reject">reject</option></select></label>
<label>Reason<input name="reason" maxlength="255" aria-describedby="reason-note"><span id="reason-note" class="muted">On a reject, the vendor sees this reason in the callback and the lead lookup.</span></label>
<button type="submit">Record decision</button></form>`);
  }
  if (callback?.status === "pending") forms.push(actionButton(viewer, `${path}/retry`, "Send callback now"));
  if (callback?.status === "dead" || callback?.status === "delivered") forms.push(actionButton(viewer, `${path}/replay`, "Replay callback"));
  return forms.length === 0 ? html`` : html`<h2>Actions</h2><div class="actions">${forms}</div>`;
}

function timeline({ lead, callback, attempts, decisions }: LeadDetail): Html {
  const events: Html[] = [
    html`<li><time>${timeText(Number(lead.created_at))}</time> Received from ${lead.vendor}${lead.test ? " as a test (X-Test-Lead)" : ""}</li>`,
  ];
  events.push(...decisions.map(decisionEvent));
  // A decision whose audit entry is not found (outside its window): what the lead itself stores.
  if (lead.operator_decision && decisions.length === 0)
    events.push(
      html`<li><time>during the hold</time> Operator decision: ${lead.operator_decision}${lead.operator_reason ? ` (${lead.operator_reason})` : ""}</li>`,
    );
  if (lead.status === "pending")
    events.push(html`<li><time>${timeText(lead.decide_after)}</time> <span class="status-pending">Decided after the hold ends</span></li>`);
  else
    events.push(
      html`<li><time>${timeText(lead.decided_at)}</time> <span class="status-${lead.status}">${lead.status}</span>${lead.rejection_reason ? `: ${reasonsText(lead.rejection_reason)}` : ""}</li>`,
    );
  events.push(...attempts.map(attemptEvent));
  if (callback?.status === "pending" && callback.next_attempt_at !== null)
    events.push(html`<li><time>${timeText(Number(callback.next_attempt_at))}</time> Next callback attempt</li>`);
  return html`<ol class="timeline">${events}</ol>`;
}

/** A decision's audit entry: who, when, and what (its detail is `accept`, or `reject: <reason>`). */
function decisionEvent(entry: AuditEntry): Html {
  const [decision, ...reason] = String(entry.detail).split(": ");
  return html`<li><time>${timeText(entry.at)}</time> Operator decision by ${entry.actor}: ${decision}${reason.length > 0 ? ` (${reason.join(": ")})` : ""}</li>`;
}

function attemptEvent(attempt: CallbackAttempt): Html {
  const answer = attempt.status_code === null ? "no answer" : `HTTP ${attempt.status_code}`;
  return html`<li><time>${timeText(attempt.started_at)}</time> Callback attempt ${attempt.attempt_no}: ${answer}, ${attempt.duration_ms} ms${attempt.error ? html` — <span class="status-dead">${attempt.error}</span>` : ""}${
    attempt.response_excerpt ? html`<pre class="mono">${attempt.response_excerpt}</pre>` : ""
  }</li>`;
}

/** The TrustedForm evidence, when the lead's certificate was verified (or tried). */
function certificateSection({ lead, findings }: LeadDetail): Html | string {
  const view = evidenceView(findings, lead.status);
  if (!view) return "";
  const rows = evidenceFields(view).filter(([, value]) => value !== null);
  const raw =
    view.raw === null
      ? ""
      : html`<h3>Provider's answer${view.raw_truncated ? " (cut)" : ""}</h3><pre class="mono">${viewText(indentedJson(view.raw, RAW_REQUEST_CHARS))}</pre>`;
  return html`<h2>Consent certificate</h2>
<table>${rows.map(([name, value]) => html`<tr><th>${name}</th><td class="mono">${value}</td></tr>`)}</table>${raw}`;
}

/** Each external check's answer for the lead, at intake and at the final stage, when any was asked. */
function checksSection({ checks }: LeadDetail): Html | string {
  if (checks.length === 0) return "";
  const row = (view: LeadDetail["checks"][number]) =>
    html`<tr><td class="mono">${view.check}</td><td>${view.stage}</td><td class="mono">${view.outcome}</td><td>${view.reason ?? "—"}</td><td>${
      view.attempts ?? "—"
    }</td><td class="mono">${view.error ?? ""}</td></tr>`;
  return html`<h2>Checks</h2>
<table><tr><th>check</th><th>stage</th><th>outcome</th><th>reason</th><th>requests</th><th>last error</th></tr>${checks.map(row)}</table>`;
}

function fieldsTable({ lead }: LeadDetail): Html {
  const shown = Object.entries(lead).filter(([name]) => name !== "raw_request" && !INTERNAL_COLUMNS.has(name));
  const text = (name: string, value: string | number | null) =>
    value === null ? "—" : TIME_COLUMN.test(name) ? timeText(Number(value)) : viewText(clipped(String(value), FIELD_CHARS));
  return html`<table>${shown.map(([name, value]) => html`<tr><th class="mono">${name}</th><td class="mono">${text(name, value)}</td></tr>`)}</table>`;
}

/** POST /leads/:id/decide|retry|replay: the action (audited by its operation), and the lead's page again. */
export async function leadAction(context: PageContext, leadId: string, action: string): Promise<Response> {
  const { store, form, now } = context;
  const actor = actorOf(context);
  const done = (notice: keyof typeof NOTICES) => redirectWithNotice(leadPath(leadId), leadId, notice);
  if (action === "decide") {
    const decision = form.get("decision");
    if (decision !== "accept" && decision !== "reject") return leadPage(context, leadId, "Choose accept or reject.");
    const reason = String(form.get("reason") ?? "").trim() || null;
    try {
      await recordOperatorDecision(store, leadId, decision, reason, actor, now);
    } catch (error) {
      if (error instanceof DecisionError) return leadPage(context, leadId, error.message);
      throw error;
    }
    return done("decided");
  }
  if (action === "retry") {
    const outcome = await retryCallbackNow(store, leadId, actor, now);
    if (outcome.kind === "retried") return done("retried");
    return leadPage(context, leadId, outcome.kind === "missing" ? "This lead has no callback." : notPendingReason(outcome.status));
  }
  const outcome = await replayCallback(store, leadId, actor, now);
  if (outcome.kind === "replayed") return done("replayed");
  return leadPage(
    context,
    leadId,
    outcome.kind === "missing" ? "This lead has no callback." : `The callback is ${outcome.status}: only dead or delivered callbacks can be replayed.`,
  );
}

/** Why "send now" did nothing: the callback is not waiting, or its attempt is under way. */
const notPendingReason = (status: string) =>
  status === "pending" ? "An attempt of this callback is under way." : `The callback is ${status}: only a pending callback can be sent now.`;
