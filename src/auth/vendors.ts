// Vendors: the holders of Basic-auth credentials and callback signing secrets. Every function takes
// a store, SQLite's or PostgreSQL's, and answers with a promise.
import { op, type Op, type Script } from "../db/script.ts";
import { auditedChange, auditEntry, type AuditAction } from "../store/audit/index.ts";
import type { Store, Tables } from "../store/index.ts";
import type { Vendor } from "../store/vendors/index.ts";
import { VENDOR_NAME } from "./vendor-name.ts";
import { newSigningSecret } from "../callbacks/signature.ts";
import { overlapEnd, rotatedSecrets, type SigningSecrets } from "../callbacks/signing-secrets.ts";

export type { Vendor } from "../store/vendors/index.ts";

// OWASP's argon2id baseline: slow enough to resist offline guessing. The authenticator caches
// verified credentials so this cost is paid once per credential, not per request.
const HASH_OPTIONS = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;

export function hashPassword(password: string): Promise<string> {
  return Bun.password.hash(password, HASH_OPTIONS);
}

export function verifyPassword(password: string, hash: string): Promise<boolean> {
  return Bun.password.verify(password, hash);
}

export const generatePassword = () => Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");

export class VendorError extends Error {}

export interface NewVendor {
  vendor: Vendor;
  /** Shown once; only its hash is stored. */
  password: string;
}

/** A vendor an operator adds (CLI, console): the vendor and its audit entry are written together. */
export async function addVendor(store: Store, name: string, actor: string, password = generatePassword(), now = Date.now()): Promise<NewVendor> {
  return insertNewVendor(store, name, password, now, { actor, action: "vendor.add", subject: name });
}

/** A vendor no operator adds: the configured bootstrap vendor, and tests' own. */
export async function createVendor(store: Store, name: string, password = generatePassword(), now = Date.now()): Promise<NewVendor> {
  return insertNewVendor(store, name, password, now, null);
}

async function insertNewVendor(store: Store, name: string, password: string, now: number, audit: AuditAction | null): Promise<NewVendor> {
  if (!VENDOR_NAME.test(name)) throw new VendorError(`Vendor name must be 1-64 letters, digits, '.', '_' or '-': ${JSON.stringify(name)}`);
  if (password.length < 8) throw new VendorError("Password must be at least 8 characters");
  if (await findVendorByName(store, name)) throw new VendorError(`Vendor already exists: ${name}`);
  const vendor: Vendor = {
    id: Bun.randomUUIDv7(),
    name,
    passwordHash: await hashPassword(password),
    signingSecret: newSigningSecret(),
    previousSigningSecret: null,
    previousSecretUntil: null,
    enabled: true,
    createdAt: now,
    updatedAt: now,
  };
  // The name check above is for a friendly error; the UNIQUE index decides when two processes race.
  if (!(await store.write((t) => insertVendor(t, vendor, audit, now)))) throw new VendorError(`Vendor already exists: ${name}`);
  return { vendor, password };
}

const insertVendor = (t: Tables, vendor: Vendor, audit: AuditAction | null, now: number): Script<boolean> =>
  audit ? auditedChange(t.vendors.insert(vendor), t.audit, auditEntry(audit, now)) : op(t.vendors.insert(vendor));

/** Creates the configured bootstrap vendor unless one with that name exists (then leaves it as it is). */
export async function ensureBootstrapVendor(store: Store, credentials: { name: string; password: string }): Promise<{ vendor: Vendor; created: boolean }> {
  const existing = await findVendorByName(store, credentials.name);
  if (existing) return { vendor: existing, created: false };
  try {
    return { vendor: (await createVendor(store, credentials.name, credentials.password)).vendor, created: true };
  } catch (error) {
    // Another instance starting beside this one created it first.
    const raced = error instanceof VendorError ? await findVendorByName(store, credentials.name) : undefined;
    if (raced) return { vendor: raced, created: false };
    throw error;
  }
}

/** The one time a bootstrap vendor's signing secret is shown: at its creation, for the tester's mock receiver. */
export const bootstrapSecretNotice = (name: string, signingSecret: string) =>
  `Created vendor ${name} (--bootstrap-vendor). Its callback signing secret, shown only now: ${signingSecret}  (lead-ingress mock-receiver --secret ${signingSecret})`;

/** What an operator does about a bootstrap vendor that already existed (its password and secret are not touched). */
export const bootstrapUnchangedAction = (name: string) =>
  `left unchanged: a vendor named ${name} exists (its password and signing secret are not set from --bootstrap-vendor); ` +
  `'lead-ingress vendors rotate-secret ${name}' prints a new signing secret, 'lead-ingress vendors rotate-password ${name}' sets a new password`;

export async function findVendorByName(store: Store, name: string): Promise<Vendor | undefined> {
  return store.read((t) => op(t.vendors.findByName(name)));
}

export async function listVendors(store: Store): Promise<Vendor[]> {
  return store.read((t) => op(t.vendors.list()));
}

async function requireVendor(store: Store, name: string): Promise<Vendor> {
  const vendor = await findVendorByName(store, name);
  if (!vendor) throw new VendorError(`No such vendor: ${name}`);
  return vendor;
}

/** Reads the vendor, then writes `change` and its audit entry in one transaction. */
async function changeVendor(
  store: Store,
  name: string,
  audit: Omit<AuditAction, "subject">,
  now: number,
  change: (t: Tables, vendor: Vendor) => Op<void>,
): Promise<Vendor> {
  const vendor = await requireVendor(store, name);
  await store.write(function* (t) {
    yield* op(change(t, vendor));
    yield* op(t.audit.append(auditEntry({ ...audit, subject: name }, now)));
  });
  return vendor;
}

export async function setVendorEnabled(store: Store, name: string, enabled: boolean, actor: string, now = Date.now()): Promise<Vendor> {
  const vendor = await changeVendor(store, name, { actor, action: enabled ? "vendor.enable" : "vendor.disable" }, now, (t, { id }) =>
    t.vendors.setEnabled(id, enabled, now),
  );
  return { ...vendor, enabled, updatedAt: now };
}

export async function rotatePassword(store: Store, name: string, actor: string, password = generatePassword(), now = Date.now()): Promise<NewVendor> {
  const passwordHash = await hashPassword(password);
  const vendor = await changeVendor(store, name, { actor, action: "vendor.rotate-password" }, now, (t, { id }) =>
    t.vendors.setPasswordHash(id, passwordHash, now),
  );
  return { vendor: { ...vendor, passwordHash, updatedAt: now }, password };
}

export interface RotatedSecret {
  vendor: Vendor;
  /** The new signing secret: shown once. */
  signingSecret: string;
  /** Until when the replaced secret signs callbacks beside the new one; null: it stopped at once (no overlap). */
  oldSecretStopsAt: number | null;
}

/**
 * A new signing secret for the vendor; the one it replaces keeps signing beside it for `overlapMs`
 * (callbacks/signing-secrets.ts). The change and its audit entry are written together, only if no
 * other rotation changed the secret since it was read.
 */
export async function rotateSigningSecret(store: Store, name: string, actor: string, overlapMs: number, now = Date.now()): Promise<RotatedSecret> {
  const vendor = await requireVendor(store, name);
  const secrets = rotatedSecrets(vendor, newSigningSecret(), now, overlapMs);
  const rotated = await store.write(function* (t) {
    if (!(yield* op(t.vendors.setSigningSecrets(vendor.id, vendor.signingSecret, secrets, now)))) return false;
    const detail =
      secrets.previousSecretUntil === null ? "old secret stopped at once" : `old secret signs until ${new Date(secrets.previousSecretUntil).toISOString()}`;
    yield* op(t.audit.append(auditEntry({ actor, action: "vendor.rotate-secret", subject: name, detail }, now)));
    return true;
  });
  if (!rotated) throw new VendorError(`The signing secret of ${name} was rotated meanwhile by someone else: nothing was changed.`);
  return { vendor: { ...vendor, ...secrets, updatedAt: now }, signingSecret: secrets.signingSecret, oldSecretStopsAt: secrets.previousSecretUntil };
}

/** What a rotation means for the vendor's receiver, said beside the new secret (CLI and console); `time` writes a time. */
export const rotationConsequence = ({ oldSecretStopsAt }: RotatedSecret, time: (ms: number) => string): string =>
  oldSecretStopsAt === null
    ? "Callbacks from now on (retries too) are signed with the new secret alone: the old one no longer signs."
    : `Until ${time(oldSecretStopsAt)} every callback carries two signatures, the new secret's and the old one's; after that only the new one's.`;

/** A vendor's signing secret's status at `now`, never the secret: whether a rotation's overlap is running and until when. */
export const signingSecretStatus = (secrets: SigningSecrets, now: number, time: (ms: number) => string): string => {
  const until = overlapEnd(secrets, now);
  return until === null ? "one secret signs" : `rotated: old and new both sign until ${time(until)}`;
};
