// The realistic workload (issue 20): postLead bodies with numbers in random order (phones.mjs), a
// share of duplicates (an earlier number again, in a new body: a 422) and of invalid leads (400),
// and callback URLs on the mock receiver, a share of which fail once and then succeed (a retry),
// keep failing (a vendor whose endpoint is down) or never answer (one whose endpoint hangs). Plain JS, for the Bun generators and Node alike.
import { formattedPhone } from "./phones.mjs";

export const CALLBACK_SLOT = "{{CALLBACK_URL}}";

/**
 * The mock receiver's paths: healthy, failing once per lead (each lead has its own path), down,
 * hanging. The healthy and the fail-once paths are one endpoint for the service's per-endpoint
 * protection (callbacks/endpoints.ts folds a path segment holding a digit to `*`: both are
 * `/cb/*`): a vendor's receiver that drops a share of requests (a deploy, a busy moment) and takes
 * the retry, among its successes. On an endpoint of their own, every first attempt there failed, so
 * its circuit kept it paused and each probe was another first attempt (bench/README.md, issue 30
 * goal 3). The down and hanging vendors are servers of their own (startWorkloadReceivers).
 */
export const CALLBACK_PATHS = { ok: "/cb/ok-1", retryPrefix: "/cb/retry-", dead: "/cb/dead", hang: "/cb/hang", duplicate: "/cb/duplicate" };

/**
 * The behaviours (PUT /_mock/behaviour) that make those paths answer as named. failFirst counts per
 * path, so the global default fails each lead's own retry path once; the others override it.
 */
export const RECEIVER_BEHAVIOURS = [
  { failFirst: 1, status: 503 },
  { path: CALLBACK_PATHS.ok },
  { path: CALLBACK_PATHS.dead, status: 503 },
  { path: CALLBACK_PATHS.hang, hang: true },
];

/** The answer each kind of request should get. */
export const EXPECTED_STATUS = { valid: 200, duplicate: 422, invalid: 400 };

/** mulberry32: a small seeded generator, so a workload (and its test) can be replayed exactly. */
export function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Bodies of one scenario, one per `next()`. `template` is a valid lead's JSON with `slot` where the
 * phone goes and CALLBACK_SLOT where its call_back_url goes; valid leads take the numbers of
 * phones.mjs from `phoneStart` on, one each. The duplicate and invalid shares are of all requests;
 * the callback shares are of the valid leads (the ones that are called back).
 */
export function createWorkload(options) {
  const { template, slot, invalidBody, phoneStart, callbackBase } = options;
  // The down and hanging endpoints are other vendors' servers (origins of their own: the service
  // guards each origin, callbacks/endpoints.ts); without them, the healthy receiver's.
  const failingBase = { dead: callbackBase, hang: callbackBase, ...options.failingBases };
  const shares = { duplicate: 0, invalid: 0, callbackRetry: 0, callbackDead: 0, callbackHang: 0, ...options.shares };
  const random = seededRandom(options.seed ?? 1);
  const [beforePhone, afterPhone] = template.split(slot);
  const body = (phone, callbackUrl) => (beforePhone + phone + afterPhone).replace(CALLBACK_SLOT, callbackUrl);
  let validSent = 0;

  function callbackUrl() {
    const draw = random();
    if (draw < shares.callbackRetry) return callbackBase + CALLBACK_PATHS.retryPrefix + validSent;
    if (draw < shares.callbackRetry + shares.callbackDead) return failingBase.dead + CALLBACK_PATHS.dead;
    if (draw < shares.callbackRetry + shares.callbackDead + shares.callbackHang) return failingBase.hang + CALLBACK_PATHS.hang;
    return callbackBase + CALLBACK_PATHS.ok;
  }

  return {
    next() {
      const draw = random();
      if (draw < shares.invalid) return { kind: "invalid", body: invalidBody };
      // A duplicate repeats the number of an earlier valid lead with another callback URL, so it is
      // a second lead with that number (422), not the same lead re-posted (an idempotent 200).
      if (draw < shares.invalid + shares.duplicate && validSent > 0) {
        const earlier = phoneStart + Math.floor(random() * validSent);
        return { kind: "duplicate", body: body(formattedPhone(earlier), callbackBase + CALLBACK_PATHS.duplicate) };
      }
      const phone = formattedPhone(phoneStart + validSent);
      const lead = { kind: "valid", body: body(phone, callbackUrl()) };
      validSent++;
      return lead;
    },
  };
}
