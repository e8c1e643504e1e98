// The Audit log page: who did what to which subject, newest first.
import { listAudit } from "./audit.ts";
import { html } from "./html.ts";
import { htmlResponse, layout, timeText, type PageContext } from "./page.ts";

const SHOWN = 200;

export async function auditPage({ store, viewer }: PageContext): Promise<Response> {
  const entries = await listAudit(store, SHOWN);
  const content = html`<h1>Audit log</h1>
<table>
<thead><tr><th>When</th><th>Who</th><th>What</th><th>Subject</th><th>Detail</th></tr></thead>
<tbody>${entries.map((entry) => html`<tr><td class="mono">${timeText(entry.at)}</td><td>${entry.actor}</td><td class="mono">${entry.action}</td><td class="mono">${entry.subject}</td><td>${entry.detail ?? ""}</td></tr>`)}</tbody>
</table>
<p class="muted">The newest ${SHOWN} entries.</p>`;
  return htmlResponse(layout("Audit log", viewer, content));
}
