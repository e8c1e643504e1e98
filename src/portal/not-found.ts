// What the portal answers for a page, lead or callback that is not the vendor's: 404, whether it
// exists for another vendor or not at all, as the API's lookup answers.
import { html } from "../console/html.ts";
import { portalHref, portalPage, type PortalContext } from "./page.ts";

export const notFoundPage = (context: Pick<PortalContext, "viewer">) =>
  portalPage("Not found", context.viewer, html`<h1>Not found</h1><p><a href="${portalHref("/leads")}">Your leads</a></p>`, 404);
