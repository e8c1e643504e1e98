// The step before a vendor change that breaks its integration at once: disabling it, a new password,
// a new signing secret. A page says what will happen and asks for the vendor's name typed again;
// the change's POST is refused without it, so a stray click (or a form resent) changes nothing.
// No script needed: a plain form, with the session's CSRF token as every change has.
import { findVendorByName } from "../auth/vendors.ts";
import { html } from "./html.ts";
import { csrfField, htmlResponse, layout, problemBox, type PageContext } from "./page.ts";

/** The field the operator types the vendor's name in. */
export const CONFIRM_FIELD = "confirm";

const CONFIRMED: Record<string, { title: string; button: string; consequence: string }> = {
  disable: {
    title: "Disable vendor",
    button: "Disable",
    consequence: "Its requests get 401 from now on, until it is enabled again. Its leads and callbacks are kept.",
  },
  "rotate-password": {
    title: "New password for vendor",
    button: "Make a new password",
    consequence: "Its current password stops working at once: its requests get 401 until it uses the new one, shown once on the next page.",
  },
  "rotate-secret": {
    title: "New signing secret for vendor",
    button: "Make a new signing secret",
    consequence:
      "Callbacks are signed with the new secret from now on, and with the old one beside it until the overlap ends (shown on the next page): the vendor's receiver must be given the new secret (shown once on the next page) before then, or it will refuse them.",
  },
};

/** Whether `action` needs the vendor's name typed again. */
export const needsConfirmation = (action: string): boolean => Object.hasOwn(CONFIRMED, action);

/** Whether a change's form carries the vendor's name, typed again. */
export const isConfirmed = (context: PageContext, name: string): boolean => context.form.get(CONFIRM_FIELD)?.trim() === name;

/** GET /vendors/:name/disable|rotate-password|rotate-secret, and the answer to a POST without the name typed. */
export async function vendorConfirmation(context: PageContext, name: string, action: string, problem: string | null = null): Promise<Response> {
  const step = CONFIRMED[action];
  const vendor = step ? await findVendorByName(context.store, name) : undefined;
  if (!step || !vendor) {
    const content = html`<h1>Vendors</h1>${problemBox(`No such vendor: ${name}`)}<p><a href="/vendors">Back to the vendors</a></p>`;
    return htmlResponse(layout("Vendors", context.viewer, content), 404);
  }
  const content = html`<h1>${step.title} ${name}</h1>
${problemBox(problem)}
<p>${step.consequence}</p>
<form method="post" action="/vendors/${encodeURIComponent(name)}/${action}" class="actions">${csrfField(context.viewer)}
<label>Type the vendor's name to confirm<input name="${CONFIRM_FIELD}" required autocomplete="off" spellcheck="false"></label>
<button type="submit">${step.button}</button> <a href="/vendors">Cancel</a>
</form>`;
  return htmlResponse(layout("Vendors", context.viewer, content), problem ? 400 : 200);
}
