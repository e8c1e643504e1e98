// Signing in and out. Failed sign-ins are counted per client address and per name with the same
// token buckets as vendors' failed credentials (auth/rate-limit.ts). An address past its budget gets
// 429 with Retry-After, the right password included, until the bucket refills. A name past its
// budget is still checked, as the API's authenticator does: refusing it unchecked let anyone lock an
// operator out with five wrong passwords from anywhere. Its checks run in lanes (auth/check-lanes.ts)
// that bound what guessing it can cost: from an address without recent failures, the clean lane
// (one check per address at a time); from one that failed lately, the suspect lane (one check at a
// time, two places per name). A failure there is 429; a lane already full is 429 without a check.
import { createLane, type LaneLimits } from "../auth/check-lanes.ts";
import { createRateLimiter, type RateLimits } from "../auth/rate-limit.ts";
import type { ClientAddress } from "../http/client-address.ts";
import type { Store } from "../store/index.ts";
import { html } from "./html.ts";
import { authenticateOperator } from "./operators.ts";
import { htmlResponse, layout, problemBox, redirect } from "./page.ts";
import { closeSession, openSession, sessionCookie, type ConsoleSession } from "./sessions.ts";

/** Five failed sign-ins at once, then one more every 12 s (300 an hour at most per address or name). */
export const FAILED_SIGN_INS: RateLimits = { perSecond: 1 / 12, burst: 5, maxKeys: 10_000 };

/** Checks of a name past its budget from addresses without recent failures: one place per address. */
const CLEAN_LANE: LaneLimits = { slots: 2, maxWaiting: 64, maxPerGroup: 1 };
/** The same from addresses that failed lately: one argon2 at a time, two places per name. */
const SUSPECT_LANE: LaneLimits = { slots: 1, maxWaiting: 8, maxPerGroup: 2 };

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
  const failuresByAddress = createRateLimiter(FAILED_SIGN_INS, deps.clock);
  const failuresByName = createRateLimiter(FAILED_SIGN_INS, deps.clock);
  const cleanLane = createLane(CLEAN_LANE);
  const suspectLane = createLane(SUSPECT_LANE);
  /** A check of a name past its budget, in the lane the address has earned; null when it may not run now. */
  const laneCheck = <T>(address: string, name: string, check: () => Promise<T>) =>
    (!failuresByAddress.isDrawn(address) && cleanLane.tryRun(address, check)) || suspectLane.tryRun(name, check);
  const tooMany = (name: string, wait: number) => signInPage(`Too many failed sign-ins: try again in ${wait} s.`, name, 429, { "retry-after": String(wait) });

  return {
    async attempt(request: Request, form: URLSearchParams): Promise<Response> {
      const name = String(form.get("name") ?? "");
      const password = String(form.get("password") ?? "");
      const address = deps.clientAddress(request);
      const addressWait = failuresByAddress.waitSeconds(address);
      if (addressWait > 0) return tooMany(name, addressWait);
      const check = () => authenticateOperator(deps.store, name, password);
      const nameWait = failuresByName.waitSeconds(name);
      const checked = nameWait > 0 ? laneCheck(address, name, check) : check();
      if (!checked) return tooMany(name, nameWait);
      const operator = await checked;
      if (!operator) {
        const [byAddress, byName] = [failuresByAddress.take(address), failuresByName.take(name)];
        if (!byName.ok) return tooMany(name, byName.retryAfterSeconds);
        return byAddress.ok ? signInPage(WRONG_CREDENTIALS, name, 401) : tooMany(name, byAddress.retryAfterSeconds);
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
