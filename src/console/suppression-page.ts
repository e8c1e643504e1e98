// The Suppression page: check one number (any spelling), add it with a reason, remove it. The
// CLI's operations (suppression/index.ts), audited under the number's E.164 form.
import { op } from "../db/script.ts";
import { addSuppression, e164OrNull, removeSuppression, SuppressionError } from "../suppression/index.ts";
import { html } from "./html.ts";
import { actorOf, csrfField, htmlResponse, layout, noticeBox, noticeFor, problemBox, redirect, type PageContext } from "./page.ts";

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
  const listed = e164 ? await context.store.read((t) => op(t.suppressions.isListed(e164))) : null;
  const answer = !typed
    ? html``
    : e164 === null
      ? problemBox(`Not a US phone number: ${typed}`)
      : html`<p class="${listed ? "problem" : "notice"}">${e164} is ${listed ? "on" : "not on"} the suppression list.</p>`;
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
</div>`;
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
