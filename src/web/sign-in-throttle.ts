// Throttled sign-ins, for the console's operators and the portal's vendors. Failed sign-ins are
// counted per client address and per name with the same token buckets as vendors' failed
// credentials (auth/rate-limit.ts). An address past its budget gets "wait" until the bucket
// refills, the right password included. A name past its budget is still checked, as the API's
// authenticator does: refusing it unchecked let anyone lock a person out with five wrong passwords
// from anywhere (the fair-delivery rule: a correct password is never refused because of someone
// else's guesses). Its checks run in lanes (auth/check-lanes.ts) that bound what guessing it can
// cost: from an address without recent failures, the clean lane (one check per address at a time);
// from one that failed lately, the suspect lane (one check at a time, two places per name). A
// failure there is "wait"; a lane already full is "wait" without a check.
import { createLane, type LaneLimits } from "../auth/check-lanes.ts";
import { createRateLimiter, type RateLimits } from "../auth/rate-limit.ts";

/** Five failed sign-ins at once, then one more every 12 s (300 an hour at most per address or name). */
export const FAILED_SIGN_INS: RateLimits = { perSecond: 1 / 12, burst: 5, maxKeys: 10_000 };

/** Checks of a name past its budget from addresses without recent failures: one place per address. */
const CLEAN_LANE: LaneLimits = { slots: 2, maxWaiting: 64, maxPerGroup: 1 };
/** The same from addresses that failed lately: one argon2 at a time, two places per name. */
const SUSPECT_LANE: LaneLimits = { slots: 1, maxWaiting: 8, maxPerGroup: 2 };

/** A sign-in's outcome: who signed in, wrong credentials, or seconds to wait. */
export type SignInOutcome<T> = { ok: T } | { wrong: true } | { waitSeconds: number };

export function createSignInThrottle(clock: () => number) {
  const failuresByAddress = createRateLimiter(FAILED_SIGN_INS, clock);
  const failuresByName = createRateLimiter(FAILED_SIGN_INS, clock);
  const cleanLane = createLane(CLEAN_LANE);
  const suspectLane = createLane(SUSPECT_LANE);
  /** A check of a name past its budget, in the lane the address has earned; null when it may not run now. */
  const laneCheck = <T>(address: string, name: string, check: () => Promise<T>) =>
    (!failuresByAddress.isDrawn(address) && cleanLane.tryRun(address, check)) || suspectLane.tryRun(name, check);

  /** Runs `check` (null: wrong credentials) for `name` from `address` under the budgets. */
  return async function attempt<T>(address: string, name: string, check: () => Promise<T | null>): Promise<SignInOutcome<T>> {
    const addressWait = failuresByAddress.waitSeconds(address);
    if (addressWait > 0) return { waitSeconds: addressWait };
    const nameWait = failuresByName.waitSeconds(name);
    const checked = nameWait > 0 ? laneCheck(address, name, check) : check();
    if (!checked) return { waitSeconds: nameWait };
    const who = await checked;
    if (who !== null) return { ok: who };
    const [byAddress, byName] = [failuresByAddress.take(address), failuresByName.take(name)];
    if (!byName.ok) return { waitSeconds: byName.retryAfterSeconds };
    return byAddress.ok ? { wrong: true } : { waitSeconds: byAddress.retryAfterSeconds };
  };
}
