// HTTP Basic authentication of vendors (CONTRACT §3).
//
// Password hashes are argon2id, which is deliberately slow (~20 ms). Verifying on every request
// would cap intake at a few dozen requests per second, so a successful verification is cached as
// SHA-256(stored hash, password): the next request with the same credentials costs one hash (the
// vendor is read once per turn of the event loop, in the turn's shared read transaction), and is
// answered synchronously. Because the stored hash is part of the key, a rotated password
// invalidates the entry by itself; `enabled` comes with that per-turn read, so a disabled vendor
// is locked out from the next turn of the event loop, even when the CLI disabled it from another
// process.
// Refusals are cached the same way, so replaying bad credentials cannot make us burn CPU.
// Uncached checks run one at a time, and concurrent checks of the same credentials share one: a
// flood of new wrong passwords occupies at most one core and a bounded queue, never the whole
// machine. Past the queue the answer is "busy" (503), never a false 401.
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { prepareRead } from "../db/prepared.ts";
import { vendors } from "../db/schema.ts";
import { readDirectly, type ReadInSnapshot } from "../db/group-commit.ts";
import { parseBasicAuthorization } from "./basic.ts";
import { hashPassword, verifyPassword } from "./vendors.ts";

/** Who a request comes from. */
export interface AuthenticatedVendor {
  id: string;
  name: string;
}

/**
 * The enabled vendor these credentials belong to; null when they are wrong (never saying which
 * part); "busy" when too many unknown credentials are waiting to be checked.
 */
export type AuthOutcome = AuthenticatedVendor | null | "busy";

export interface Authenticator {
  /** Answers at once for credentials already checked; a promise when argon2 must run. */
  authenticate(authorization: string | null): AuthOutcome | Promise<AuthOutcome>;
}

export const MAX_WAITING_CHECKS = 64;

class Busy extends Error {}

/** Runs tasks one at a time with at most `maxWaiting` queued; beyond that, rejects with Busy. */
function serialQueue(maxWaiting: number) {
  let tail: Promise<unknown> = Promise.resolve();
  let waiting = 0;
  return <T>(task: () => Promise<T>): Promise<T> => {
    if (waiting >= maxWaiting) return Promise.reject(new Busy());
    waiting++;
    const run = tail.then(() => (waiting--, task()));
    tail = run.catch(() => {});
    return run;
  };
}

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
  /** Runs the vendor read; the server passes its group committer's shared per-turn read. */
  read?: ReadInSnapshot;
  cacheSize?: number;
  maxWaiting?: number;
}

interface VendorRow {
  id: string;
  name: string;
  password_hash: string;
  enabled: number;
}

export function createAuthenticator(db: Db, options: AuthenticatorOptions = {}): Authenticator {
  const { read = readDirectly, cacheSize = 10_000, maxWaiting = MAX_WAITING_CHECKS } = options;
  const findVendor = prepareRead<{ name: string }, VendorRow>(db.$client, db
    .select({ id: vendors.id, name: vendors.name, passwordHash: vendors.passwordHash, enabled: vendors.enabled })
    .from(vendors)
    .where(eq(vendors.name, sql.placeholder("name"))));
  // A turn's requests usually share a few vendors, and the turn's reads share one snapshot, so a
  // name is looked up once per turn; the memo ends with the turn, as the snapshot does.
  const vendorsThisTurn = new Map<string, VendorRow | null>();
  // And the turn's answers by Authorization header: within a turn, the vendor row and the caches
  // give an exact header the same answer, so a repeat skips the parse and the hash.
  const answersThisTurn = new Map<string, AuthOutcome>();
  let turnEndScheduled = false;
  function rememberThisTurn() {
    if (turnEndScheduled) return;
    turnEndScheduled = true;
    setImmediate(() => {
      turnEndScheduled = false;
      vendorsThisTurn.clear();
      answersThisTurn.clear();
    });
  }
  function vendorNamed(name: string): VendorRow | null {
    let vendor = vendorsThisTurn.get(name);
    if (vendor === undefined) {
      rememberThisTurn();
      vendor = read(() => findVendor.get({ name }));
      vendorsThisTurn.set(name, vendor);
    }
    return vendor;
  }
  const verified = new BoundedSet(cacheSize);
  const refused = new BoundedSet(cacheSize);
  // Unknown names are checked against a throwaway hash so they take as long as a wrong password.
  let decoyHash: Promise<string> | undefined;
  const checking = new Map<string, Promise<boolean>>();
  const enqueue = serialQueue(maxWaiting);

  /** Runs argon2 for credentials not seen before (one check per key at a time). */
  function verifySlowly(key: string, password: string, hash: Promise<string> | string): Promise<boolean | "busy"> {
    let check = checking.get(key);
    if (!check) {
      check = enqueue(async () => {
        const ok = await verifyPassword(password, await hash);
        (ok ? verified : refused).add(key);
        return ok;
      }).finally(() => checking.delete(key));
      checking.set(key, check);
    }
    return check.catch((error) => (error instanceof Busy ? "busy" : Promise.reject(error)));
  }

  function authenticate(authorization: string | null): AuthOutcome | Promise<AuthOutcome> {
    if (authorization === null) return null;
    const known = answersThisTurn.get(authorization);
    if (known !== undefined) return known;
    const outcome = check(authorization);
    // Only settled answers: a check still waiting for argon2 is shared by `checking` instead.
    if (!(outcome instanceof Promise)) {
      rememberThisTurn();
      answersThisTurn.set(authorization, outcome);
    }
    return outcome;
  }

  function check(authorization: string): AuthOutcome | Promise<AuthOutcome> {
    const credentials = parseBasicAuthorization(authorization);
    if (!credentials) return null;
    const vendor = vendorNamed(credentials.name);
    const { name, password } = credentials;
    const key = vendor ? digest(vendor.password_hash, password) : digest("unknown", name, password);
    // An unknown name can never be verified, so it gets null whatever its check says.
    const answer = (ok: boolean | "busy"): AuthOutcome => (ok === "busy" ? "busy" : ok && vendor?.enabled ? { id: vendor.id, name: vendor.name } : null);
    if (verified.has(key)) return answer(true);
    if (refused.has(key)) return answer(false);
    const hash = vendor ? vendor.password_hash : (decoyHash ??= hashPassword(crypto.randomUUID()));
    return verifySlowly(key, password, hash).then(answer);
  }

  return { authenticate };
}
