// Vendors: the holders of Basic-auth credentials and callback signing secrets.
import { op } from "../db/script.ts";
import { storeOn, type Connection } from "../store/sqlite.ts";
import type { Vendor } from "../store/vendors/index.ts";
import { VENDOR_NAME } from "./vendor-name.ts";
import { newSigningSecret } from "../callbacks/signature.ts";

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

export async function createVendor(db: Connection, name: string, password = generatePassword(), now = Date.now()): Promise<NewVendor> {
  if (!VENDOR_NAME.test(name)) throw new VendorError(`Vendor name must be 1-64 letters, digits, '.', '_' or '-': ${JSON.stringify(name)}`);
  if (password.length < 8) throw new VendorError("Password must be at least 8 characters");
  if (findVendorByName(db, name)) throw new VendorError(`Vendor already exists: ${name}`);
  const vendor: Vendor = {
    id: Bun.randomUUIDv7(),
    name,
    passwordHash: await hashPassword(password),
    signingSecret: newSigningSecret(),
    enabled: true,
    createdAt: now,
    updatedAt: now,
  };
  // The name check above is for a friendly error; the UNIQUE index decides when two processes race.
  if (!storeOn(db).write((t) => op(t.vendors.insert(vendor)))) throw new VendorError(`Vendor already exists: ${name}`);
  return { vendor, password };
}

/** Creates the configured bootstrap vendor unless one with that name exists (then returns null). */
export async function ensureBootstrapVendor(db: Connection, credentials: { name: string; password: string } | undefined): Promise<Vendor | null> {
  if (!credentials || findVendorByName(db, credentials.name)) return null;
  try {
    return (await createVendor(db, credentials.name, credentials.password)).vendor;
  } catch (error) {
    if (error instanceof VendorError && findVendorByName(db, credentials.name)) return null;
    throw error;
  }
}

export function findVendorByName(db: Connection, name: string): Vendor | undefined {
  return storeOn(db).read((t) => op(t.vendors.findByName(name)));
}

export function listVendors(db: Connection): Vendor[] {
  return storeOn(db).read((t) => op(t.vendors.list()));
}

function requireVendor(db: Connection, name: string): Vendor {
  const vendor = findVendorByName(db, name);
  if (!vendor) throw new VendorError(`No such vendor: ${name}`);
  return vendor;
}

export function setVendorEnabled(db: Connection, name: string, enabled: boolean, now = Date.now()): Vendor {
  const vendor = requireVendor(db, name);
  storeOn(db).write((t) => op(t.vendors.setEnabled(vendor.id, enabled, now)));
  return { ...vendor, enabled, updatedAt: now };
}

export async function rotatePassword(db: Connection, name: string, password = generatePassword(), now = Date.now()): Promise<NewVendor> {
  const vendor = requireVendor(db, name);
  const passwordHash = await hashPassword(password);
  storeOn(db).write((t) => op(t.vendors.setPasswordHash(vendor.id, passwordHash, now)));
  return { vendor: { ...vendor, passwordHash, updatedAt: now }, password };
}

export function rotateSigningSecret(db: Connection, name: string, now = Date.now()): Vendor {
  const vendor = requireVendor(db, name);
  const signingSecret = newSigningSecret();
  storeOn(db).write((t) => op(t.vendors.setSigningSecret(vendor.id, signingSecret, now)));
  return { ...vendor, signingSecret, updatedAt: now };
}
