// Vendors: the holders of Basic-auth credentials and callback signing secrets.
import type { Op } from "../../db/script.ts";
import type { vendors } from "../../db/schema.ts";

export type Vendor = typeof vendors.$inferSelect;

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
  insert(vendor: Vendor): Op<boolean>;
  setEnabled(id: string, enabled: boolean, now: number): Op<void>;
  setPasswordHash(id: string, passwordHash: string, now: number): Op<void>;
  setSigningSecret(id: string, signingSecret: string, now: number): Op<void>;
}
