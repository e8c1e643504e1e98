// HTTP Basic authentication of vendors (CONTRACT §3).
//
// Password hashes are argon2id, which is deliberately slow (~20 ms). Verifying on every request
// would cap intake at a few dozen requests per second, so a successful verification is cached as
// SHA-256(stored hash, password): the next request with the same credentials costs one hash and
// one indexed vendor read (in the turn's shared read transaction). Because the stored hash is part
// of the key, a rotated password invalidates the entry by itself; `enabled` is read from the
// database on every request, so a disabled vendor is locked out from the next turn of the event
// loop, even when the CLI disabled it from another process.
// Refusals are cached the same way, so replaying bad credentials cannot make us burn CPU.
// Uncached checks run one at a time, and concurrent checks of the same credentials share one: a
// flood of new wrong passwords occupies at most one core and a bounded queue, never the whole
// machine. Past the queue the answer is "busy" (503), never a false 401.
import { eq, sql } from "drizzle-orm";
import type { Db } from "../db/client.ts";
import { vendors } from "../db/schema.ts";
import { readDirectly, type ReadInSnapshot } from "../db/group-commit.ts";
import { parseBasicAuthorization } from "./basic.ts";
import { hashPassword, verifyPassword, type Vendor } from "./vendors.ts";

export interface Authenticator {
  /**
   * The enabled vendor these credentials belong to; null when they are wrong (never saying which
   * part); "busy" when too many unknown credentials are waiting to be checked.
   */
  authenticate(authorization: string | null): Promise<Vendor | null | "busy">;
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

const digest = (...parts: string[]) => new Bun.CryptoHasher("sha256").update(parts.join("\0")).digest("base64");

export interface AuthenticatorOptions {
  /** Runs the vendor read; the server passes its group committer's shared per-turn read. */
  read?: ReadInSnapshot;
  cacheSize?: number;
  maxWaiting?: number;
}

export function createAuthenticator(db: Db, options: AuthenticatorOptions = {}): Authenticator {
  const { read = readDirectly, cacheSize = 10_000, maxWaiting = MAX_WAITING_CHECKS } = options;
  const findVendor = db.select().from(vendors).where(eq(vendors.name, sql.placeholder("name"))).prepare();
  const verified = new BoundedSet(cacheSize);
  const refused = new BoundedSet(cacheSize);
  // Unknown names are checked against a throwaway hash so they take as long as a wrong password.
  let decoyHash: Promise<string> | undefined;
  const checking = new Map<string, Promise<boolean>>();
  const enqueue = serialQueue(maxWaiting);

  function verifyOnce(key: string, password: string, hash: Promise<string> | string): Promise<boolean> {
    if (verified.has(key)) return Promise.resolve(true);
    if (refused.has(key)) return Promise.resolve(false);
    let check = checking.get(key);
    if (!check) {
      check = enqueue(async () => {
        const ok = await verifyPassword(password, await hash);
        (ok ? verified : refused).add(key);
        return ok;
      }).finally(() => checking.delete(key));
      checking.set(key, check);
    }
    return check;
  }

  async function authenticate(authorization: string | null): Promise<Vendor | null> {
    const credentials = parseBasicAuthorization(authorization);
    if (!credentials) return null;
    const vendor = read(() => findVendor.get({ name: credentials.name }));
    if (!vendor) {
      decoyHash ??= hashPassword(crypto.randomUUID());
      await verifyOnce(digest("unknown", credentials.name, credentials.password), credentials.password, decoyHash);
      return null;
    }
    const ok = await verifyOnce(digest(vendor.passwordHash, credentials.password), credentials.password, vendor.passwordHash);
    return ok && vendor.enabled ? vendor : null;
  }

  return {
    authenticate: (authorization) => authenticate(authorization).catch((error) => (error instanceof Busy ? "busy" : Promise.reject(error))),
  };
}
