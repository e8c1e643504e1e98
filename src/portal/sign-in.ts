// Signing in to the portal with the vendor's API credentials or a one-time link, and signing out.
// Throttled as the console's sign-in (web/sign-in-throttle.ts): a correct password is never refused
// because of someone else's guesses. A link's GET shows a button and only its POST uses the link,
// so a mail scanner or chat preview that fetches the URL does not spend it.
import { findVendorByName, hashPassword, generatePassword, verifyPassword } from "../auth/vendors.ts";
import { VENDOR_NAME } from "../auth/vendor-name.ts";
import type { ClientAddress } from "../http/client-address.ts";
import type { Store } from "../store/index.ts";
import { createSignInThrottle } from "../web/sign-in-throttle.ts";
import { html } from "../console/html.ts";
import { problemBox, redirect } from "../console/page.ts";
import { portalHref, portalPage } from "./page.ts";
import { closePortalSession, openPortalSession, portalCookie, redeemSignInLink, type PortalSignedIn, type SignInWay } from "../portal-access/sessions.ts";

export const WRONG_VENDOR_CREDENTIALS = "Wrong vendor name or password.";
export const LINK_UNUSABLE = "This sign-in link was used already, has expired, or is not one: ask the operator for a new one.";

export interface PortalSignInDeps {
  store: Store;
  clock: () => number;
  clientAddress: ClientAddress;
  sessionLifetimeMs: number;
  /** Under TLS the cookie is Secure. */
  secure: boolean;
}

export function portalSignInPage(problem: string | null = null, name = "", status = 200, headers: Record<string, string> = {}): Response {
  const form = html`<form class="login" method="post" action="${portalHref("/login")}">
<h1>Vendor sign-in</h1>
${problemBox(problem)}
<p class="muted">Your API credentials: the vendor name and password you send with every request.</p>
<label>Vendor<input name="name" autocomplete="username" required value="${name}"></label>
<label>Password<input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`;
  return portalPage("Sign in", null, form, status, headers);
}

/** GET /portal/link?token=…: a button that uses the link (its POST). */
export function linkPage(token: string): Response {
  const form = html`<form class="login" method="post" action="${portalHref("/link")}">
<h1>Vendor sign-in</h1>
<p>This link signs you in once. It stops working when used or when it expires.</p>
<input type="hidden" name="token" value="${token}">
<button type="submit">Sign in</button>
</form>`;
  return portalPage("Sign in", null, form);
}

let noVendorHash: Promise<string> | undefined;

/** The enabled vendor these credentials belong to; null otherwise, after as long a check (no name is told apart by timing). */
async function authenticateVendor(store: Store, name: string, password: string): Promise<{ id: string; name: string } | null> {
  const vendor = VENDOR_NAME.test(name) ? await findVendorByName(store, name) : undefined;
  const usable = vendor?.enabled ? vendor : undefined;
  const matches = await verifyPassword(password, usable?.passwordHash ?? (await (noVendorHash ??= hashPassword(generatePassword()))));
  return usable && matches ? { id: usable.id, name: usable.name } : null;
}

export function createPortalSignIn(deps: PortalSignInDeps) {
  const throttled = createSignInThrottle(deps.clock);
  const signedIn = async (vendor: { id: string; name: string }, way: SignInWay) => {
    const token = await openPortalSession(deps.store, vendor, way, deps.sessionLifetimeMs, deps.clock());
    return redirect(portalHref("/overview"), { "set-cookie": portalCookie(token, deps.sessionLifetimeMs, deps.secure) });
  };

  return {
    async withPassword(request: Request, form: URLSearchParams): Promise<Response> {
      const name = String(form.get("name") ?? "");
      const password = String(form.get("password") ?? "");
      const outcome = await throttled(deps.clientAddress(request), name, () => authenticateVendor(deps.store, name, password));
      if ("waitSeconds" in outcome)
        return portalSignInPage(`Too many failed sign-ins: try again in ${outcome.waitSeconds} s.`, name, 429, { "retry-after": String(outcome.waitSeconds) });
      if ("wrong" in outcome) return portalSignInPage(WRONG_VENDOR_CREDENTIALS, name, 401);
      return signedIn(outcome.ok, "password");
    },

    async withLink(form: URLSearchParams): Promise<Response> {
      const vendor = await redeemSignInLink(deps.store, String(form.get("token") ?? ""), deps.clock());
      return vendor ? signedIn(vendor, "link") : portalSignInPage(LINK_UNUSABLE, "", 401);
    },

    async signOut(session: PortalSignedIn): Promise<Response> {
      await closePortalSession(deps.store, session, deps.clock());
      return redirect(portalHref("/login"), { "set-cookie": portalCookie("", 0, deps.secure) });
    },
  };
}
