// The Suppression page: check one number (any spelling), add it with a reason, remove it, import a
// CSV file; list and export the list (suppression-list.ts). The CLI's operations (suppression/index.ts, suppression/import.ts), audited under the
// number's E.164 form or the file's name.
import { op } from "../db/script.ts";
import { errorText } from "../log/index.ts";
import { MAX_PROBLEMS_KEPT, type ImportProgress, type ImportResult } from "../suppression/import.ts";
import { addSuppression, e164OrNull, removeSuppression, SuppressionError } from "../suppression/index.ts";
import { html, type Html } from "./html.ts";
import { suppressionList } from "./suppression-list.ts";
import { actorOf, csrfField, htmlResponse, layout, layoutAround, noticeBox, noticeFor, problemBox, redirect, timeText, type PageContext } from "./page.ts";

const NOTICES: Record<string, string> = {
  added: "The number is on the suppression list: leads with it get 422, pending ones are rejected.",
  "already-listed": "The number was already on the suppression list.",
  removed: "The number is off the suppression list.",
  "not-listed": "The number was not on the suppression list.",
};

export async function suppressionPage(context: PageContext, problem: string | null = null): Promise<Response> {
  const { viewer, url } = context;
  const typed = url.searchParams.get("phone")?.trim() ?? "";
  const e164 = typed ? e164OrNull(typed) : null;
  const entry = e164 ? await context.store.read((t) => op(t.suppressions.find(e164))) : null;
  const since = entry ? ` (since ${timeText(entry.createdAt)}${entry.reason ? `, reason: ${entry.reason}` : ""})` : "";
  const answer = !typed
    ? html``
    : e164 === null
      ? problemBox(`Not a US phone number: ${typed}`)
      : html`<p class="${entry ? "problem" : "notice"}">${e164} is ${entry ? "on" : "not on"} the suppression list${since}.</p>`;
  const content = html`<h1>Suppression</h1>
${noticeBox(problem ? null : noticeFor(url, NOTICES))}${problemBox(problem)}
<form class="filters" method="get" action="/suppression">
<label>Phone<input name="phone" value="${typed}" placeholder="(212) 555-0123" inputmode="tel" required></label>
<button type="submit">Check</button></form>
${answer}
<h2>Add or remove a number</h2>
<div class="actions">
<form method="post" action="/suppression/add">${csrfField(viewer)}
<label>Phone<input name="phone" inputmode="tel" required value="${e164 ?? ""}"></label>
<label>Reason<input name="reason" maxlength="255"></label>
<button type="submit">Add</button></form>
<form method="post" action="/suppression/remove">${csrfField(viewer)}
<label>Phone<input name="phone" inputmode="tel" required value="${e164 ?? ""}"></label>
<button type="submit" class="secondary">Remove</button></form>
</div>
<h2>Import a CSV file</h2>
<p class="muted">A header row naming a <span class="mono">phone</span> column and, optionally, a <span class="mono">reason</span> column.
All or nothing: if any row is malformed, nothing is imported and every problem is listed by line. Numbers already listed are left as they are.</p>
<div class="actions"><form method="post" action="/suppression/import" enctype="multipart/form-data">${csrfField(viewer)}
<label>CSV file<input name="file" type="file" accept=".csv,text/csv" required></label>
<button type="submit">Import</button></form></div>
${await suppressionList(context)}`;
  return htmlResponse(layout("Suppression", viewer, content), problem ? 400 : 200);
}

/** POST /suppression/add and /suppression/remove */
export async function suppressionAction(context: PageContext, action: "add" | "remove"): Promise<Response> {
  const phone = context.form.get("phone") ?? "";
  const e164 = e164OrNull(phone);
  try {
    const changed =
      action === "add"
        ? await addSuppression(context.store, phone, context.form.get("reason")?.trim() || null, actorOf(context), context.now)
        : await removeSuppression(context.store, phone, actorOf(context), context.now);
    const done = action === "add" ? (changed ? "added" : "already-listed") : changed ? "removed" : "not-listed";
    return redirect(`/suppression?phone=${encodeURIComponent(e164!)}&done=${done}`);
  } catch (error) {
    if (error instanceof SuppressionError) return suppressionPage(context, error.message);
    throw error;
  }
}

const count = (n: number) => n.toLocaleString("en-US");

/**
 * POST /suppression/import (multipart: the file). The answer is streamed: the page's frame and a
 * line per 10,000 rows checked while the import runs, then its result, so an operator watching a
 * large file sees it move, with no script (the page works the same with JavaScript off).
 */
export async function suppressionImport(context: PageContext): Promise<Response> {
  const file = context.upload;
  if (!file || file.size === 0) return suppressionPage(context, "Choose a CSV file with a header row to import.");
  const name = file.name || "upload.csv";
  const [before, after] = layoutAround("Suppression", context.viewer);
  const { readable, writable } = new TransformStream<string, string>();
  const page = writable.getWriter();
  // The operator may close the page mid-import: the import still finishes (all or none, its audit
  // entry in the same transaction); only the writes to the gone page fail, and are let go.
  const letGo = () => {};
  const write = (markup: Html | string) => void page.write(typeof markup === "string" ? markup : markup.text).catch(letGo);
  write(before);
  write(html`<h1>Suppression import</h1>
<p>Reading <span class="mono">${name}</span> (${count(file.size)} bytes)…</p>
<ol class="progress">`);
  const progress = ({ rows, bytesRead, totalBytes }: ImportProgress) =>
    write(html`<li>${count(rows)} rows checked (${Math.floor((100 * bytesRead) / Math.max(totalBytes, 1))}% of the file)</li>`);
  void (async () => {
    try {
      const result = await context.importSuppressions(file, name, actorOf(context), { onProgress: progress, now: context.now });
      write(html`</ol>${importResult(name, result)}`);
    } catch (error) {
      write(
        html`</ol>${problemBox(error instanceof SuppressionError ? error.message : "The import failed; nothing was imported. The reason is in the service's log.")}`,
      );
      if (!(error instanceof SuppressionError)) context.log.error("suppression_import_failed", { file: name, error: errorText(error) });
    } finally {
      write(html`<p><a href="/suppression">Back to Suppression</a></p>`);
      write(after);
      await page.close().catch(letGo);
    }
  })();
  return new Response(readable.pipeThrough(new TextEncoderStream()), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" } });
}

function importResult(name: string, result: ImportResult): Html {
  if (result.kind === "imported")
    return noticeBox(`Imported ${name}: ${count(result.rows)} rows, ${count(result.added)} added, ${count(result.alreadyListed)} already listed.`);
  const unshown = result.problemCount - result.problems.length;
  return html`${problemBox(`Nothing was imported: ${name} has ${count(result.problemCount)} malformed row${result.problemCount === 1 ? "" : "s"}. Fix ${result.problemCount === 1 ? "it" : "them"} and import the file again.`)}
<table class="problems">
<thead><tr><th>Line</th><th>Problem</th></tr></thead>
<tbody>${result.problems.map((problem) => html`<tr><td class="mono">${problem.line}</td><td>${problem.error}</td></tr>`)}</tbody>
</table>
${unshown > 0 ? html`<p class="muted">The first ${MAX_PROBLEMS_KEPT} problems are listed; ${count(unshown)} more are not.</p>` : ""}`;
}
