// Where the authenticator finds a vendor's credentials, synchronously: authentication answers known
// credentials without a promise (auth/authenticator.ts).
//
// SQLite: read per turn from the turn's shared read snapshot, so a vendor disabled by the CLI in
// another process is refused from the next turn. PostgreSQL answers with promises, so every
// instance keeps all vendors' credentials in memory (vendors are few) and reloads them every
// second: a vendor disabled (or a password rotated) from any instance or the CLI is refused by every
// instance within about one second, two at most even when a reload is slow.
import { op } from "../db/script.ts";
import type { Store } from "../store/index.ts";
import { reloadEvery } from "../store/periodic-reload.ts";
import type { VendorCredentials } from "../store/vendors/index.ts";

/** The credentials of the vendor of this name, or null. */
export type CredentialsLookup = (name: string) => VendorCredentials | null;

/** On a store that reads at once (SQLite): each call reads the table. */
export function storedCredentials(store: Store<"now">): CredentialsLookup {
  return (name) => store.read((t) => op(t.vendors.credentialsOf(name)));
}

export interface CachedCredentials {
  lookup: CredentialsLookup;
  /** Reloads now (after this process changed a vendor). */
  refresh(): Promise<void>;
  stop(): void;
}

export const CREDENTIALS_REFRESH_MS = 1_000;

/**
 * On a store that answers with promises (PostgreSQL): every vendor loaded now, then reloaded every
 * `refreshMs`. A failed reload keeps the last list (the database's own outage already makes
 * intake answer 503) and is reported once per run of failures.
 */
export async function cachedCredentials(store: Store, options: { refreshMs?: number; onError?: (error: unknown) => void } = {}): Promise<CachedCredentials> {
  let byName = new Map<string, VendorCredentials>();
  const load = async () => {
    const vendors = await store.read((t) => op(t.vendors.list()));
    byName = new Map(vendors.map((v) => [v.name, { id: v.id, name: v.name, passwordHash: v.passwordHash, enabled: v.enabled }]));
  };
  await load();
  const reloading = reloadEvery(load, options.refreshMs ?? CREDENTIALS_REFRESH_MS, options.onError);
  return {
    lookup: (name) => byName.get(name) ?? null,
    refresh: load,
    stop: reloading.stop,
  };
}
