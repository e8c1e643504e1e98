// The frame of every portal page and what a signed-in portal request's handler gets. Pages are the
// console's kind (console/page.ts, console/html.ts): server-rendered, one stylesheet from the
// service itself, no script, CSP 'self'.
import type { Logger } from "../log/index.ts";
import type { PolicyInForce } from "../policy-in-force/loader.ts";
import type { Store } from "../store/index.ts";
import { framedPage, htmlResponse, type SiteFrame } from "../console/page.ts";
import type { Html } from "../console/html.ts";
import { PORTAL_PATH } from "../portal-access/sessions.ts";
import type { TestCallbackLimit } from "./test-callback-limit.ts";

export const PORTAL_STYLESHEET = `${PORTAL_PATH}/assets/portal.css`;
/** No icon: answered 204, so a browser's request for one is no 404 in its console. */
export const PORTAL_ICON = `${PORTAL_PATH}/favicon.ico`;

const FRAME: SiteFrame = {
  brand: "Lead Ingress · Vendor portal",
  sections: [
    { path: `${PORTAL_PATH}/overview`, title: "Overview" },
    { path: `${PORTAL_PATH}/leads`, title: "Leads" },
    { path: `${PORTAL_PATH}/refusals`, title: "Refused requests" },
    { path: `${PORTAL_PATH}/callbacks`, title: "Callbacks" },
    { path: `${PORTAL_PATH}/caps`, title: "Caps and schedules" },
    { path: `${PORTAL_PATH}/integration`, title: "Integration" },
  ],
  stylesheet: PORTAL_STYLESHEET,
  signOut: `${PORTAL_PATH}/logout`,
  icon: PORTAL_ICON,
};

/** The vendor signed in, and the token its forms must carry back (CSRF). */
export interface PortalViewer {
  vendorId: string;
  vendorName: string;
  csrfToken: string;
}

/** What the portal's pages read besides the store: settings from the service's config. */
export interface PortalSettings {
  /** How long a rotated signing secret's old one still signs (config.signingSecretOverlapMs). */
  signingSecretOverlapMs: number;
  allowPrivateCallbacks: boolean;
  callbackTimeoutMs: number;
  /** The API's address as vendors reach it: config.publicUrl, else the request's own origin. */
  publicUrl: string | undefined;
}

export interface PortalContext {
  store: Store;
  viewer: PortalViewer;
  url: URL;
  /** A POST's form fields (its CSRF token already checked); empty on a GET. */
  form: URLSearchParams;
  now: number;
  settings: PortalSettings;
  /** The acceptance policy in force; undefined when the app runs without one (tests). */
  policy: Pick<PolicyInForce, "current"> | undefined;
  /** The thread's one limit on test callbacks, shared by every request. */
  testCallbackLimit: TestCallbackLimit;
  log: Logger;
}

/** A portal page in the portal's frame; `viewer` null: the sign-in pages. */
export const portalPage = (title: string, viewer: PortalViewer | null, content: Html, status = 200, headers: Record<string, string> = {}): Response =>
  htmlResponse(framedPage(FRAME, title, viewer && { name: viewer.vendorName, csrfToken: viewer.csrfToken }, content), status, headers);

/** A portal address: `/portal` followed by `path`. */
export const portalHref = (path: string): string => `${PORTAL_PATH}${path}`;
