// Signing in and out of the console, throttled as web/sign-in-throttle.ts says (the same rule as
// the portal's and the API's: a correct password is never refused because of someone else's guesses).
import type { ClientAddress } from "../http/client-address.ts";
import type { Store } from "../store/index.ts";
import { createSignInThrottle } from "../web/sign-in-throttle.ts";
import { html } from "./html.ts";
import { authenticateOperator } from "./operators.ts";
import { htmlResponse, layout, problemBox, redirect } from "./page.ts";
import { closeSession, openSession, sessionCookie, type ConsoleSession } from "./sessions.ts";

export { FAILED_SIGN_INS } from "../web/sign-in-throttle.ts";

export const WRONG_CREDENTIALS = "Wrong name or password.";

export interface SignInDeps {
  store: Store;
  clock: () => number;
  clientAddress: ClientAddress;
  sessionLifetimeMs: number;
  /** Under TLS the cookie is Secure. */
  secure: boolean;
}

export function signInPage(problem: string | null = null, name = "", status = 200, headers: Record<string, string> = {}): Response {
  const form = html`<form class="login" method="post" action="/login">
<h1>Sign in</h1>
${problemBox(problem)}
<label>Operator<input name="name" autocomplete="username" required value="${name}"></label>
<label>Password<input name="password" type="password" autocomplete="current-password" required></label>
<button type="submit">Sign in</button>
</form>`;
  return htmlResponse(layout("Sign in", null, form), status, headers);
}

export function createSignIn(deps: SignInDeps) {
  const throttled = createSignInThrottle(deps.clock);
  const tooMany = (name: string, wait: number) => signInPage(`Too many failed sign-ins: try again in ${wait} s.`, name, 429, { "retry-after": String(wait) });

  return {
    async attempt(request: Request, form: URLSearchParams): Promise<Response> {
      const name = String(form.get("name") ?? "");
      const password = String(form.get("password") ?? "");
      const outcome = await throttled(deps.clientAddress(request), name, () => authenticateOperator(deps.store, name, password));
      if ("waitSeconds" in outcome) return tooMany(name, outcome.waitSeconds);
      if ("wrong" in outcome) return signInPage(WRONG_CREDENTIALS, name, 401);
      const token = await openSession(deps.store, outcome.ok, deps.sessionLifetimeMs, deps.clock());
      return redirect("/overview", { "set-cookie": sessionCookie(token, deps.sessionLifetimeMs, deps.secure) });
    },

    async signOut(session: ConsoleSession): Promise<Response> {
      await closeSession(deps.store, session, deps.clock());
      return redirect("/login", { "set-cookie": sessionCookie("", 0, deps.secure) });
    },
  };
}
