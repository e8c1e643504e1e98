// Vendors: the holders of Basic-auth credentials and callback signing secrets.
import type { Op } from "../../db/script.ts";
import type { vendors } from "../../db/schema.ts";

export type Vendor = typeof vendors.$inferSelect;
/**
 * The vendor's callback signing secrets: the newest, and the one the last rotation replaced with
 * until when it still signs (callbacks/signing-secrets.ts decides which sign a callback).
 */
export type SigningSecrets = Pick<Vendor, "signingSecret" | "previousSigningSecret" | "previousSecretUntil">;
/** A vendor as inserted: no rotation overlaps yet, so the previous secret's columns may be left out. */
export type NewVendorRow = typeof vendors.$inferInsert & Pick<Vendor, "id" | "createdAt" | "updatedAt">;

/** What authentication reads on every turn: the vendor's id, name, password hash and switch. */
export interface VendorCredentials {
  id: string;
  name: string;
  passwordHash: string;
  enabled: boolean;
}

export interface VendorsTable {
  findByName(name: string): Op<Vendor | undefined>;
  /** The credentials of the vendor of this name, or null; the authenticator's per-turn read. */
  credentialsOf(name: string): Op<VendorCredentials | null>;
  /** Every vendor, by name. */
  list(): Op<Vendor[]>;
  /** Adds a vendor; false when its name is taken (the UNIQUE index decides between racing processes). */
  insert(vendor: NewVendorRow): Op<boolean>;
  setEnabled(id: string, enabled: boolean, now: number): Op<void>;
  setPasswordHash(id: string, passwordHash: string, now: number): Op<void>;
  /**
   * Sets the vendor's signing secrets (a rotation, callbacks/signing-secrets.ts) if its current
   * secret is still `expected`; false when another rotation came first (nothing changed).
   */
  setSigningSecrets(id: string, expected: string, secrets: SigningSecrets, now: number): Op<boolean>;
}
