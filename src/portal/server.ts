// The vendor portal (docs/portal.md): /portal on the API's listener. Every route but the sign-in
// pages and the stylesheet needs a live session; every change (POST) also needs the session's CSRF
// token and, when the browser names one, the API's own origin. Each page reads only the signed-in
// vendor's data: another vendor's lead or callback is not found, as the API answers it.
import type { Config } from "../config/index.ts";
import type { ClientAddress } from "../http/client-address.ts";
import type { Logger } from "../log/index.ts";
import type { PolicyInForce } from "../policy-in-force/loader.ts";
import type { Store } from "../store/index.ts";
import { guarded } from "../console/guarded.ts";
import { problemBox, redirect } from "../console/page.ts";
import { CONSOLE_CSS } from "../console/style.ts";
import { csrfHolds } from "../web/session-tokens.ts";
import { formOf, routed, sameOrigin, type Route } from "../web/forms.ts";
import { capsPage } from "./caps-page.ts";
import { callbacksPage, resendFailed, resendFailedConfirmation, resendOne } from "./callbacks-page.ts";
import { integrationPage, rotateSecret, sendTestCallback } from "./integration-page.ts";
import { leadPage } from "./lead-page.ts";
import { leadsCsv, leadsPage } from "./leads-page.ts";
import { notFoundPage } from "./not-found.ts";
import { overviewPage } from "./overview-page.ts";
import { PORTAL_ICON, portalHref, portalPage, PORTAL_STYLESHEET, type PortalContext } from "./page.ts";
import { refusalsPage } from "./refusals-page.ts";
import { currentPortalSession, PORTAL_PATH } from "../portal-access/sessions.ts";
import { createPortalSignIn, linkPage, portalSignInPage } from "./sign-in.ts";
import { createTestCallbackLimit } from "./test-callback-limit.ts";

export interface PortalDeps {
  config: Config;
  store: Store;
  log: Logger;
  clock: () => number;
  clientAddress: ClientAddress;
  policy: Pick<PolicyInForce, "current"> | undefined;
}

/** Paths below /portal, the prefix taken off. */
const ROUTES: Route<PortalContext>[] = [
  ["GET", /^\/?$/, async () => redirect(portalHref("/overview"))],
  ["GET", /^\/overview$/, overviewPage],
  ["GET", /^\/leads$/, leadsPage],
  ["GET", /^\/leads\.csv$/, leadsCsv],
  ["GET", /^\/leads\/([^/]+)$/, (context, leadId) => leadPage(context, leadId!)],
  ["GET", /^\/refusals$/, refusalsPage],
  ["GET", /^\/callbacks$/, callbacksPage],
  ["POST", /^\/callbacks\/resend$/, resendOne],
  ["GET", /^\/callbacks\/resend-failed$/, resendFailedConfirmation],
  ["POST", /^\/callbacks\/resend-failed$/, resendFailed],
  ["GET", /^\/caps$/, capsPage],
  ["GET", /^\/integration$/, (context) => integrationPage(context)],
  ["POST", /^\/integration\/rotate-secret$/, rotateSecret],
  ["POST", /^\/integration\/test-callback$/, sendTestCallback],
];

const refused = (status: number, text: string) => portalPage("Refused", null, problemBox(text), status);

/** The portal's request handler for paths under /portal, with the security headers on every answer. */
export function createPortal(deps: PortalDeps): (request: Request) => Promise<Response> {
  const { store, log, clock, config } = deps;
  const signIn = createPortalSignIn({
    store,
    clock,
    clientAddress: deps.clientAddress,
    sessionLifetimeMs: config.portalSessionLifetimeMs,
    secure: config.tlsCertFile !== undefined,
  });
  const testCallbackLimit = createTestCallbackLimit({ count: config.portalTestCallbacks, windowMs: config.portalTestCallbackWindowMs }, clock);

  async function answer(request: Request, url: URL): Promise<Response> {
    // Routed on the target as sent (/portal/…), the URL's dot segments resolved: it may have left the portal.
    if (url.pathname !== PORTAL_PATH && !url.pathname.startsWith(`${PORTAL_PATH}/`)) return refused(404, "Not found.");
    const path = url.pathname.slice(PORTAL_PATH.length);
    const method = request.method === "HEAD" ? "GET" : request.method;
    if (method !== "GET" && method !== "POST") return refused(405, "Method not allowed.");
    if (method === "GET" && url.pathname === PORTAL_STYLESHEET)
      return new Response(CONSOLE_CSS, { headers: { "content-type": "text/css; charset=utf-8", "cache-control": "no-cache" } });
    if (method === "GET" && url.pathname === PORTAL_ICON) return new Response(null, { status: 204 });
    if (method === "POST" && !sameOrigin(request, url)) return refused(403, "This form came from another site.");
    const form = method === "POST" ? await formOf(request) : null;
    if (method === "POST" && !form) return refused(400, "Not a form of the portal.");
    if (path === "/login") return form ? signIn.withPassword(request, form) : portalSignInPage();
    if (path === "/link") return form ? signIn.withLink(form) : linkPage(url.searchParams.get("token") ?? "");

    const session = await currentPortalSession(store, request, clock());
    if (!session) return method === "GET" ? redirect(portalHref("/login")) : refused(403, "Sign in first.");
    if (form && !csrfHolds(session, form.get("csrf"))) return refused(403, "This form has expired: reload the page and try again.");
    if (method === "POST" && path === "/logout") return signIn.signOut(session);
    const context: PortalContext = {
      store,
      viewer: { vendorId: session.vendorId, vendorName: session.vendorName, csrfToken: session.csrfToken },
      url,
      form: form ?? new URLSearchParams(),
      now: clock(),
      settings: {
        signingSecretOverlapMs: config.signingSecretOverlapMs,
        allowPrivateCallbacks: config.allowPrivateCallbacks,
        callbackTimeoutMs: config.callbackTimeoutMs,
        publicUrl: config.publicUrl,
      },
      policy: deps.policy,
      testCallbackLimit,
      log,
    };
    return routed(ROUTES, method, path, context) ?? notFoundPage(context);
  }

  return guarded(answer, refused, log, "portal_error");
}
