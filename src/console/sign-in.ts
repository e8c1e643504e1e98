// Signing in and out. Failed sign-ins are throttled per client address and per name with the same
// token buckets as vendors' failed credentials (auth/rate-limit.ts): a guesser gets a few tries,
// then 429 with Retry-After, the right password included, until the bucket refills.
import { createRateLimiter, type RateLimits } from "../auth/rate-limit.ts";
import type { ClientAddress } from "../http/client-address.ts";
import type { Store } from "../store/index.ts";
import { html } from "./html.ts";
import { authenticateOperator } from "./operators.ts";
import { htmlResponse, layout, problemBox, redirect } from "./page.ts";
import { closeSession, openSession, sessionCookie, type ConsoleSession } from "./sessions.ts";

/** Five failed sign-ins at once, then one more every 12 s (300 an hour at most per address or name). */
export const FAILED_SIGN_INS: RateLimits = { perSecond: 1 / 12, burst: 5, maxKeys: 10_000 };

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
  const failures = createRateLimiter(FAILED_SIGN_INS, deps.clock);

  return {
    async attempt(request: Request, form: URLSearchParams): Promise<Response> {
      const name = String(form.get("name") ?? "");
      const password = String(form.get("password") ?? "");
      const keys = [`address:${deps.clientAddress(request)}`, `name:${name}`];
      const wait = Math.max(...keys.map((key) => failures.waitSeconds(key)));
      if (wait > 0) return signInPage(`Too many failed sign-ins: try again in ${wait} s.`, name, 429, { "retry-after": String(wait) });
      const operator = await authenticateOperator(deps.store, name, password);
      if (!operator) {
        for (const key of keys) failures.take(key);
        return signInPage(WRONG_CREDENTIALS, name, 401);
      }
      const now = deps.clock();
      const token = await openSession(deps.store, operator, deps.sessionLifetimeMs, now);
      return redirect("/overview", { "set-cookie": sessionCookie(token, deps.sessionLifetimeMs, deps.secure) });
    },

    async signOut(session: ConsoleSession): Promise<Response> {
      await closeSession(deps.store, session, deps.clock());
      return redirect("/login", { "set-cookie": sessionCookie("", 0, deps.secure) });
    },
  };
}
