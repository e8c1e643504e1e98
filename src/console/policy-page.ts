// The Policy page (docs/policy.md): the acceptance policy in force, its version and who changed it
// when; its entries, each with a button to disable or enable it; and a form to edit the whole
// document. Every change goes through `rules import`'s function (policy-in-force/manage.ts): the
// same checks, the same audit entry with what changed. A form carries the version it was read at,
// and a save over a newer version changes nothing (a lost update otherwise).
import { ensureChecksSecret } from "../checks/secret.ts";
import { op } from "../db/script.ts";
import type { Problem } from "../policy/index.ts";
import { importPolicyOver, notAppliedYet, readPolicyText } from "../policy-in-force/manage.ts";
import { redirectWithNotice, takeNotice } from "./flash.ts";
import { html, type Html } from "./html.ts";
import { policyEntries, withEntryEnabled } from "./policy-entries.ts";
import { capUseTable, policyUse, refusedCell, type PolicyUse } from "./policy-use.ts";
import { actionButton, actorOf, csrfField, htmlResponse, layout, noticeBox, timeText, type PageContext } from "./page.ts";

const PATH = "/policy";
const NOTICES: Record<string, string> = {
  saved: "The policy is saved and in force: every instance applies it within 2 seconds. The audit log says what changed.",
  disabled: "The entry is disabled: it is kept but no longer applied (every instance within 2 seconds).",
  enabled: "The entry is enabled: it is applied again (every instance within 2 seconds).",
};

interface InForce {
  version: number;
  document: string;
  updatedAt: number | null;
  updatedBy: string | null;
}

async function inForce(context: PageContext): Promise<InForce> {
  const row = await context.store.read((t) => op(t.policy.current()));
  return row === null ? { version: 0, document: "{}", updatedAt: null, updatedBy: null } : row;
}

/** The document as the page shows it: indented; as stored if it is somehow not JSON. */
function pretty(document: string): string {
  try {
    return JSON.stringify(JSON.parse(document), null, 2);
  } catch {
    return document;
  }
}

/** What the page shows besides the policy in force: a problem, the problems by path, the editor's text and the version its form carries. */
interface Shown {
  status?: number;
  notice?: string | null;
  problem?: Html | string | null;
  problems?: Problem[];
  text?: string;
  formVersion?: number;
  headers?: Record<string, string>;
}

async function render(context: PageContext, policy: InForce, shown: Shown): Promise<Response> {
  const { viewer } = context;
  const reading = readPolicyText(policy.document);
  const use: PolicyUse = await policyUse(context.store, reading.ok ? reading.policy : null, context.now);
  const notApplied = reading.ok ? notAppliedYet(reading.policy) : [];
  const entries = policyEntries(policy.document);
  const version = String(policy.version);
  const content = html`<h1>Policy</h1>
${noticeBox(shown.notice ?? null)}${shown.problem ? html`<div class="problem" role="alert">${shown.problem}</div>` : ""}
${shown.problems && shown.problems.length > 0 ? problemsTable(shown.problems) : ""}
<p id="in-force">${
    policy.updatedAt === null
      ? "No policy was ever imported: the empty policy ({}) is in force, version 0."
      : html`Version <strong>${version}</strong>, changed by <span class="mono">${policy.updatedBy}</span> at <span class="mono">${timeText(policy.updatedAt)}</span>.`
  } <a href="/audit?action=policy">Its changes in the audit log</a></p>
${notApplied.length > 0 ? html`<p class="muted">Notes: ${notApplied.join("; ")}.</p>` : ""}
<h2>Entries</h2>
${
  entries.length === 0
    ? html`<p class="muted">The policy has no entries: every lead the other checks accept is taken.</p>`
    : html`<table id="entries">
<thead><tr><th>List</th><th>Name</th><th>Applies to</th><th>Status</th><th>Refusals since 00:00 UTC</th><th></th></tr></thead>
<tbody>${entries.map(
        (entry) => html`<tr>
<td>${entry.list}${entry.stage ? html` <span class="muted">(${entry.stage})</span>` : ""}</td>
<td class="mono">${entry.name}</td>
<td>${entry.scope}</td>
<td class="${entry.enabled ? "status-accepted" : "status-rejected"}">${entry.enabled ? "enabled" : "disabled"}</td>
${refusedCell(use, entry.list, entry.name)}
<td>${actionButton(viewer, `${PATH}/entries`, entry.enabled ? "Disable" : "Enable", { list: entry.list, name: entry.name, version, enabled: String(!entry.enabled) }, entry.enabled)}</td>
</tr>`,
      )}</tbody>
</table>`
}
${capUseTable(use, reading.ok ? reading.policy : null, context.now)}
<details id="checks-secret"><summary>Checks signing secret</summary>
<p class="muted">Every check request is signed with it (Standard Webhooks, docs/checks.md): give it to each check service to verify them. Also <span class="mono">lead-ingress checks secret</span>.</p>
<p class="mono">${await ensureChecksSecret(context.store)}</p></details>
<h2>Document in force</h2>
<pre class="mono" id="document">${pretty(policy.document)}</pre>
<h2>Edit</h2>
<p class="muted">Checked whole as <span class="mono">rules import</span> checks it: a document with a problem changes nothing. The format: docs/policy.md.</p>
<form method="post" action="${PATH}" class="editor">${csrfField(viewer)}
<input type="hidden" name="version" value="${String(shown.formVersion ?? policy.version)}">
<label>Policy document (JSON)<textarea name="document" rows="24" spellcheck="false" class="mono">
${shown.text ?? pretty(policy.document)}</textarea></label>
<button type="submit">Save the policy</button></form>`;
  return htmlResponse(layout("Policy", viewer, content), shown.status ?? 200, shown.headers ?? {});
}

function problemsTable(problems: Problem[]): Html {
  return html`<table class="problems" id="problems"><thead><tr><th>Path</th><th>Problem</th></tr></thead>
<tbody>${problems.map((problem) => html`<tr><td class="mono">${problem.path || "/"}</td><td>${problem.message}</td></tr>`)}</tbody></table>`;
}

/** GET /policy */
export async function policyPage(context: PageContext): Promise<Response> {
  const { notice, headers } = takeNotice(context, PATH, "policy", NOTICES);
  return render(context, await inForce(context), { notice, headers });
}

/** The version a form says it read the policy at; null when it carries none that could be. */
function readVersion(context: PageContext): number | null {
  const text = context.form.get("version") ?? "";
  return /^\d{1,15}$/.test(text) ? Number(text) : null;
}

const staleProblem = (policy: InForce, read: number, changes: string[], what: string): Html =>
  html`The policy was changed after you read it (version ${String(read)}): it is now version ${String(policy.version)}, by
<span class="mono">${policy.updatedBy}</span> at <span class="mono">${timeText(policy.updatedAt)}</span>. Nothing was saved. ${what}
${changes.length > 0 ? html`<ul>${changes.map((change) => html`<li>${change}</li>`)}</ul>` : ""}`;

/** POST /policy: the whole document, as edited. */
export async function policySave(context: PageContext): Promise<Response> {
  const text = context.form.get("document") ?? "";
  const read = readVersion(context);
  if (read === null) return render(context, await inForce(context), { status: 400, problem: "This form carries no version: reload the page.", text });
  const outcome = await importPolicyOver(context.store, text, actorOf(context), read, context.now);
  if (outcome.kind === "imported") return redirectWithNotice(PATH, "policy", "saved");
  const policy = await inForce(context);
  if (outcome.kind === "invalid") {
    const count = outcome.problems.length;
    const problem = `Nothing changed: the document has ${count} problem${count === 1 ? "" : "s"}, each named by its path below.`;
    return render(context, policy, { status: 422, problem, problems: outcome.problems, text, formVersion: read });
  }
  // The editor's text is kept, and its form now carries the version in force: saving again, having
  // seen what that would change, replaces it; reloading the page starts from it instead.
  const what = `Your text is kept below; saving it again replaces version ${String(policy.version)}, which would change:`;
  return render(context, policy, { status: 409, problem: staleProblem(policy, read, outcome.changes, what), text, formVersion: outcome.version });
}

/** POST /policy/entries: one entry's `enabled`, set to false or removed, imported as an edit of the version read. */
export async function policyEntryEnabled(context: PageContext): Promise<Response> {
  const [list, name, enabled] = ["list", "name", "enabled"].map((field) => context.form.get(field) ?? "") as [string, string, string];
  const read = readVersion(context);
  const policy = await inForce(context);
  if (read === null || (enabled !== "true" && enabled !== "false"))
    return render(context, policy, { status: 400, problem: "Not a form of this page: reload it." });
  if (read !== policy.version)
    return render(context, policy, { status: 409, problem: staleProblem(policy, read, [], "The entries below are the ones in force now: try again.") });
  const document = withEntryEnabled(policy.document, list, name, enabled === "true");
  if (document === null) return render(context, policy, { status: 404, problem: `The policy has no entry ${name} in ${list}.` });
  const outcome = await importPolicyOver(context.store, document, actorOf(context), read, context.now);
  if (outcome.kind === "imported") return redirectWithNotice(PATH, "policy", enabled === "true" ? "enabled" : "disabled");
  const now = await inForce(context);
  if (outcome.kind === "stale")
    return render(context, now, { status: 409, problem: staleProblem(now, read, [], "The entries below are the ones in force now: try again.") });
  // The document in force no longer passes this release's checks: say why rather than change it.
  return render(context, now, {
    status: 422,
    problem: "Nothing changed: the policy in force has problems; fix them in the editor below.",
    problems: outcome.problems,
  });
}
