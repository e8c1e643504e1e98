// The Vendors page: add one (its password and signing secret shown once), disable and enable,
// rotate the password or the signing secret (shown once; the old secret signs beside it for the
// overlap, whose end the list shows), make a one-time portal sign-in link (shown once); disabling and rotating are confirmed first
// (vendor-confirmation.ts). The CLI's operations, audited. Each
// vendor's volume (leads taken and refused) and acceptance (of its leads decided, the share
// accepted) over the last day and week, from the rollup (stats/series.ts).
import {
  addVendor,
  listVendors,
  rotatePassword,
  rotateSigningSecret,
  rotationConsequence,
  setVendorEnabled,
  signingSecretStatus,
  VendorError,
} from "../auth/vendors.ts";
import { createSignInLink } from "../portal-access/sessions.ts";
import { REFUSED_KINDS } from "../stats/kinds.ts";
import { readVendorVolumes, type VendorVolume } from "../stats/series.ts";
import { html, type Html } from "./html.ts";
import { CONFIRM_FIELD, isConfirmed, needsConfirmation, vendorConfirmation } from "./vendor-confirmation.ts";
import { actionButton, actorOf, csrfField, htmlResponse, layout, noticeBox, noticeFor, problemBox, redirect, timeText, type PageContext } from "./page.ts";

const NOTICES: Record<string, string> = {
  disabled: "The vendor is disabled: its requests get 401 from now on.",
  enabled: "The vendor is enabled again.",
};

export async function vendorsPage(context: PageContext, problem: string | null = null): Promise<Response> {
  const { viewer } = context;
  const vendors = await listVendors(context.store);
  const volumes = new Map((await context.store.read((t) => readVendorVolumes(t, context.now))).map((volume) => [volume.name, volume]));
  const path = (name: string, action: string) => `/vendors/${encodeURIComponent(name)}/${action}`;
  const content = html`<h1>Vendors</h1>
${noticeBox(problem ? null : noticeFor(context.url, NOTICES))}${problemBox(problem)}
<form class="filters" method="post" action="/vendors/add">${csrfField(viewer)}
<label>New vendor's name<input name="name" required maxlength="64" pattern="[A-Za-z0-9._\\-]+"></label>
<button type="submit">Add vendor</button></form>
<table>
<thead><tr><th>Name</th><th>Status</th><th>Signing secret</th><th>Last day</th><th>Last week</th><th>Created</th><th>Changed</th><th></th></tr></thead>
<tbody>${vendors.map(
    (vendor) => html`<tr>
<td>${vendor.name}</td>
<td class="${vendor.enabled ? "status-accepted" : "status-rejected"}">${vendor.enabled ? "enabled" : "disabled"}</td>
<td data-signing-secret>${signingSecretStatus(vendor, context.now, timeText)}</td>
${volumeCells(volumes.get(vendor.name))}
<td class="mono">${timeText(vendor.createdAt)}</td>
<td class="mono">${timeText(vendor.updatedAt)}</td>
<td>${vendor.enabled ? html`<a class="button" href="${path(vendor.name, "disable")}">Disable…</a>` : actionButton(viewer, path(vendor.name, "enable"), "Enable", {}, true)} <a class="button" href="${path(vendor.name, "rotate-password")}">New password…</a> <a class="button" href="${path(vendor.name, "rotate-secret")}">New signing secret…</a>${vendor.enabled ? html` ${actionButton(viewer, path(vendor.name, "portal-link"), "Portal sign-in link", {}, true)}` : ""}</td>
</tr>`,
  )}</tbody>
</table>`;
  return htmlResponse(layout("Vendors", viewer, content), problem ? 409 : 200);
}

/** Leads taken and refused, and the share of those decided that were accepted, over the day and the week. */
function volumeCells(volume: VendorVolume | undefined): Html[] {
  return (["day", "week"] as const).map((window) => {
    const counts = volume?.[window] ?? {};
    const of = (kind: string) => counts[kind] ?? 0;
    const refused = REFUSED_KINDS.reduce((total, kind) => total + of(kind), 0);
    const decided = of("decided_accepted") + of("decided_rejected");
    const acceptance = decided === 0 ? "none decided" : `${Math.round((of("decided_accepted") / decided) * 1000) / 10} % accepted`;
    return html`<td data-volume="${window}">${of("accepted")} leads, ${refused} refused; ${acceptance}</td>`;
  });
}

/** A secret is shown on this one answer only (never in a URL), with what follows from the change. */
function secretsPage(context: PageContext, title: string, secrets: [string, string][], consequence = "") {
  const content = html`<h1>${title}</h1>
<p class="notice" role="status">Store these now and give them to the vendor: they are not shown again. ${consequence}</p>
<dl class="secrets">${secrets.map(([name, value]) => html`<dt>${name}</dt><dd>${value}</dd>`)}</dl>
<p><a href="/vendors">Back to the vendors</a></p>`;
  return htmlResponse(layout("Vendors", context.viewer, content));
}

/** POST /vendors/add and /vendors/:name/disable|enable|rotate-password|rotate-secret; this instance sees the change at once. */
export async function vendorAction(context: PageContext, name: string, action: string): Promise<Response> {
  if (needsConfirmation(action) && !isConfirmed(context, name))
    return vendorConfirmation(context, name, action, context.form.has(CONFIRM_FIELD) ? "The name typed is not the vendor's: nothing was changed." : null);
  try {
    const response = await changeVendor(context, name, action);
    await context.vendorsChanged();
    return response;
  } catch (error) {
    if (error instanceof VendorError) return vendorsPage(context, error.message);
    throw error;
  }
}

async function changeVendor(context: PageContext, name: string, action: string): Promise<Response> {
  const { store, now } = context;
  if (action === "add") {
    const created = await addVendor(store, name, actorOf(context), undefined, now);
    return secretsPage(context, `Vendor ${name} added`, [
      ["Vendor", name],
      ["Password", created.password],
      ["Signing secret", created.vendor.signingSecret],
    ]);
  }
  if (action === "rotate-password") {
    const rotated = await rotatePassword(store, name, actorOf(context), undefined, now);
    return secretsPage(context, `New password for ${name}`, [
      ["Vendor", name],
      ["Password", rotated.password],
    ]);
  }
  if (action === "rotate-secret") {
    const rotated = await rotateSigningSecret(store, name, actorOf(context), context.signingSecretOverlapMs, now);
    return secretsPage(
      context,
      `New signing secret for ${name}`,
      [
        ["Vendor", name],
        ["Signing secret", rotated.signingSecret],
        ["Old secret signs until", timeText(rotated.oldSecretStopsAt)],
      ],
      rotationConsequence(rotated, timeText),
    );
  }
  if (action === "portal-link") {
    const link = await createSignInLink(store, name, actorOf(context), context.portalLinks.lifetimeMs, now);
    return secretsPage(
      context,
      `Portal sign-in link for ${name}`,
      [
        ["Vendor", name],
        ["Sign-in link", `${context.portalLinks.origin}${link.path}`],
        ["Valid until", timeText(link.expiresAt)],
      ],
      "It signs the vendor in to its portal once.",
    );
  }
  const enabled = action === "enable";
  await setVendorEnabled(store, name, enabled, actorOf(context), now);
  return redirect(`/vendors?done=${enabled ? "enabled" : "disabled"}`);
}
