// An in-memory database with one vendor and the intake service, for tests below the HTTP layer.
import { storeOn } from "../../src/store/sqlite.ts";
import { createVendor, type Vendor } from "../../src/auth/vendors.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { createGroupCommitter } from "../../src/db/group-commit.ts";
import { submitLead, type IntakeDeps } from "../../src/intake/service.ts";
import { groupCommittedStore, sqliteTransactionParticipants } from "../../src/store/sqlite.ts";

export interface IntakeHarness {
  database: DatabaseHandle;
  vendor: Vendor;
  deps: IntakeDeps;
  /** The fake clock, in ms; tests move it forward. */
  now: { value: number };
  /** Submits a lead and returns its id (the submission must be accepted). */
  accept(body: Record<string, unknown>): Promise<string>;
}

export async function intakeHarness(options: { holdPeriodMs?: number; duplicateWindowMs?: number } = {}): Promise<IntakeHarness> {
  const database = openDatabase(":memory:");
  const { vendor } = await createVendor(storeOn(database.db), "vendor-test", "password-test");
  const now = { value: Date.UTC(2026, 0, 1) };
  const deps: IntakeDeps = {
    store: groupCommittedStore(database.db, createGroupCommitter(database.sqlite, { participants: sqliteTransactionParticipants(database.db) })),
    duplicateWindowMs: options.duplicateWindowMs ?? 30 * 86_400_000,
    holdPeriodMs: options.holdPeriodMs ?? 60_000,
    testHoldPeriodMs: 5_000,
    allowPrivateCallbacks: false,
    clock: () => now.value,
  };
  return {
    database,
    vendor,
    deps,
    now,
    async accept(body) {
      const outcome = await submitLead(deps, { vendorId: vendor.id, body, rawBody: JSON.stringify(body), idempotencyKey: null });
      if (outcome.kind !== "accepted") throw new Error(`lead not accepted: ${JSON.stringify(outcome)}`);
      return outcome.leadId;
    },
  };
}
