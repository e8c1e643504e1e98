// HTTP Basic authentication of vendors (docs/contract.md §3), and the throttling of failed credentials
// (docs/contract.md §9).
//
// Password hashes are argon2id, which is deliberately slow (~20 ms). Verifying on every request
// would cap intake at a few dozen requests per second, so a successful verification is cached as
// SHA-256(stored hash, password): the next request with the same credentials costs one hash (the
// vendor is looked up once per turn of the event loop: see vendor-credentials.ts), and is
// answered synchronously, before any throttle. Because the stored hash is part of the key, a
// rotated password invalidates the entry by itself; `enabled` comes with that lookup, so a
// disabled vendor is locked out from the next turn of the event loop on SQLite (within a second
// on PostgreSQL), even when the CLI disabled it from another process. Refusals are cached the same
// way, so replaying bad credentials cannot make us burn CPU.
//
// A flood of bad credentials must not keep valid vendors out. (It did: one argon2 queue of 64
// places, and ~100 connections of wrong passwords gave every vendor not yet verified 503.) So:
// - An unknown or disabled name can never succeed: it costs no argon2, and is answered after a
//   timer as long as a typical check. A refusal from the cache waits out the same timer, so the
//   answer's timing does not say whether the name exists (a repeated guess would, at once).
// - Failures are counted per client address and per vendor name, in token buckets. Over its
//   budget, a failure gets 429 with Retry-After instead of 401.
// - argon2 runs in two lanes. The clean lane takes checks only from addresses without recent
//   failures, one check per address at a time, in two slots: a flood from one address gets at
//   most its first guess into one of them, and a valid vendor elsewhere has the other. Everything
//   else goes to the suspect lane: one check at a time (the flood's share of the CPU is at most
//   one core), a short queue with at most two places per vendor name; past it, 429.
// - A name over its failure budget is never refused without a check: its failures get 429, but
//   its requests are still checked, in the suspect lane when the address failed lately. (Refusing
//   them unchecked let one guess every 3 s from anywhere lock the real vendor out whenever its own
//   address had a failure: a typo, or anyone else behind the same load balancer.) Guessing is
//   bounded by the suspect lane instead: one check at a time, two places per name.
// Concurrent checks of the same credentials share one.
import type { VendorCredentials } from "../store/vendors/index.ts";
import { parseBasicAuthorization } from "./basic.ts";
import { createLane, type LaneLimits } from "./check-lanes.ts";
import { createRateLimiter, type RateDecision, type RateLimits } from "./rate-limit.ts";
import type { CredentialsLookup } from "./vendor-credentials.ts";
import { verifyPassword } from "./vendors.ts";

/** Who a request comes from. */
export interface AuthenticatedVendor {
  id: string;
  name: string;
}

/** Too many failed attempts from this client or for this name: 429. */
export interface Throttled {
  retryAfterSeconds: number;
}

/**
 * The enabled vendor these credentials belong to; null when they are wrong (never saying which
 * part); Throttled when they could not be checked or failed past the client's or name's budget.
 */
export type AuthOutcome = AuthenticatedVendor | null | Throttled;

export interface Authenticator {
  /**
   * Answers at once for credentials already verified; a promise when argon2 must run or a failure
   * waits out its timer. `clientAddress` is asked only when the credentials are not known good.
   */
  authenticate(authorization: string | null, clientAddress?: () => string): AuthOutcome | Promise<AuthOutcome>;
}

/** Failures an address may make at once, then one every 3 s. Enough for a person fixing a typo. */
const ADDRESS_FAILURES: RateLimits = { burst: 20, perSecond: 1 / 3, maxKeys: 100_000 };
/** The same for a vendor name, whichever addresses the failures came from. */
const NAME_FAILURES: RateLimits = { burst: 20, perSecond: 1 / 3 };
/** Grouped by client address: one place each, so one address never holds both slots. */
const CLEAN_LANE: LaneLimits = { slots: 2, maxWaiting: 64, maxPerGroup: 1 };
/** Grouped by vendor name. One argon2 thread: the flood's share of the CPU is one core at most. */
const SUSPECT_LANE: LaneLimits = { slots: 1, maxWaiting: 8, maxPerGroup: 2 };
/** A first guess at one argon2id check with our parameters; measured checks replace it. */
const FIRST_CHECK_ESTIMATE_MS = 20;

/** A caller that cannot tell clients apart (tests, tools) counts them all as one. */
const ONE_CLIENT = () => "unknown";

/** A set that forgets its oldest entries past a size, so memory stays bounded. */
class BoundedSet {
  private readonly entries = new Set<string>();
  constructor(private readonly max: number) {}
  has(key: string) {
    return this.entries.has(key);
  }
  add(key: string) {
    this.entries.add(key);
    if (this.entries.size > this.max) this.entries.delete(this.entries.values().next().value!);
  }
}

const digest = (...parts: string[]) => Bun.SHA256.hash(parts.join("\0"), "base64");

export interface AuthenticatorOptions {
  cacheSize?: number;
  clock?: () => number;
  addressFailures?: RateLimits;
  nameFailures?: RateLimits;
  cleanLane?: LaneLimits;
  suspectLane?: LaneLimits;
  /** Waits `ms` before a failure that ran no check is answered. */
  sleep?: (ms: number) => Promise<unknown>;
}

/** Failed credentials: a known vendor's wrong password, or (null) a name that cannot log in. */
interface FailedGuess {
  guessedVendor: string | null;
}

/** What credentials amount to, before the client's failures are counted. */
type Verdict = AuthenticatedVendor | null | FailedGuess;

const NO_SUCH_VENDOR: FailedGuess = { guessedVendor: null };
const secondsToWait = (decision: RateDecision) => (decision.ok ? 0 : decision.retryAfterSeconds);

/** `credentialsOf`: the vendors' credentials, synchronously (see vendor-credentials.ts). */
export function createAuthenticator(credentialsOf: CredentialsLookup, options: AuthenticatorOptions = {}): Authenticator {
  const { cacheSize = 10_000, clock = Date.now, sleep = Bun.sleep } = options;
  // A turn's requests usually share a few vendors, and on SQLite the turn's reads share one
  // snapshot, so a name is looked up once per turn; the memo ends with the turn, as the snapshot does.
  const vendorsThisTurn = new Map<string, VendorCredentials | null>();
  // And the turn's verdicts by Authorization header: within a turn, the vendor row and the caches
  // give an exact header the same verdict, so a repeat skips the parse and the hash.
  const verdictsThisTurn = new Map<string, Verdict>();
  let turnEndScheduled = false;
  function rememberThisTurn() {
    if (turnEndScheduled) return;
    turnEndScheduled = true;
    setImmediate(() => {
      turnEndScheduled = false;
      vendorsThisTurn.clear();
      verdictsThisTurn.clear();
    });
  }
  function vendorNamed(name: string): VendorCredentials | null {
    let vendor = vendorsThisTurn.get(name);
    if (vendor === undefined) {
      rememberThisTurn();
      vendor = credentialsOf(name);
      vendorsThisTurn.set(name, vendor);
    }
    return vendor;
  }
  const verified = new BoundedSet(cacheSize);
  const refused = new BoundedSet(cacheSize);
  const checking = new Map<string, Promise<boolean>>();
  const failuresByAddress = createRateLimiter(options.addressFailures ?? ADDRESS_FAILURES, clock);
  const failuresByName = createRateLimiter(options.nameFailures ?? NAME_FAILURES, clock);
  const cleanLane = createLane(options.cleanLane ?? CLEAN_LANE);
  const suspectLane = createLane(options.suspectLane ?? SUSPECT_LANE);
  let typicalCheckMs = FIRST_CHECK_ESTIMATE_MS;

  async function timedVerify(password: string, hash: string): Promise<boolean> {
    const started = performance.now();
    const ok = await verifyPassword(password, hash);
    typicalCheckMs += (performance.now() - started - typicalCheckMs) / 5;
    return ok;
  }

  /** Counts a failure against the address (and the vendor name): 401, or 429 past a budget. */
  function failed(address: string, vendorName: string | null): null | Throttled {
    const byAddress = failuresByAddress.take(address);
    const byName = vendorName === null ? byAddress : failuresByName.take(vendorName);
    if (byAddress.ok && byName.ok) return null;
    return { retryAfterSeconds: Math.max(secondsToWait(byAddress), secondsToWait(byName)) };
  }

  /** A failure that ran no check (an unknown name, a cached refusal), answered as late as one that did. */
  async function countFailure(guess: FailedGuess, address: string): Promise<AuthOutcome> {
    await sleep(typicalCheckMs);
    return failed(address, guess.guessedVendor);
  }

  /** Runs argon2 in the lane this client has earned; null when it may not run now. */
  function startCheck(key: string, password: string, vendor: VendorCredentials, address: string): Promise<boolean> | null {
    const suspect = failuresByAddress.isDrawn(address);
    const verify = () => timedVerify(password, vendor.passwordHash);
    const run = (!suspect && cleanLane.tryRun(address, verify)) || suspectLane.tryRun(vendor.name, verify);
    if (!run) return null;
    const check = run.then((ok) => ((ok ? verified : refused).add(key), ok)).finally(() => checking.delete(key));
    checking.set(key, check);
    return check;
  }

  async function checkSlowly(key: string, password: string, vendor: VendorCredentials, address: string): Promise<AuthOutcome> {
    const check = checking.get(key) ?? startCheck(key, password, vendor, address);
    if (!check) {
      const wait = Math.max(1, failuresByAddress.waitSeconds(address), failuresByName.waitSeconds(vendor.name));
      return { retryAfterSeconds: wait };
    }
    return (await check) ? { id: vendor.id, name: vendor.name } : failed(address, vendor.name);
  }

  function judge(authorization: string, clientAddress: () => string): Verdict | Promise<AuthOutcome> {
    const credentials = parseBasicAuthorization(authorization);
    if (!credentials) return null;
    const vendor = vendorNamed(credentials.name);
    if (!vendor?.enabled) return NO_SUCH_VENDOR;
    const key = digest(vendor.passwordHash, credentials.password);
    if (verified.has(key)) return { id: vendor.id, name: vendor.name };
    if (refused.has(key)) return { guessedVendor: vendor.name };
    return checkSlowly(key, credentials.password, vendor, clientAddress());
  }

  function authenticate(authorization: string | null, clientAddress = ONE_CLIENT): AuthOutcome | Promise<AuthOutcome> {
    if (authorization === null) return null;
    let verdict = verdictsThisTurn.get(authorization);
    if (verdict === undefined) {
      const judged = judge(authorization, clientAddress);
      // Only settled verdicts: a check still waiting for argon2 is shared by `checking` instead.
      if (judged instanceof Promise) return judged;
      rememberThisTurn();
      verdictsThisTurn.set(authorization, judged);
      verdict = judged;
    }
    return verdict !== null && "guessedVendor" in verdict ? countFailure(verdict, clientAddress()) : verdict;
  }

  return { authenticate };
}
