// rotateSigningSecret, the domain function the CLI and the console call (and the vendor portal will):
// on both databases, the new secret, when the old one stops, the audit entry, rotating twice, and
// two rotations racing from the same read (docs/contract.md §12).
import { expect, test } from "bun:test";
import { createVendor, findVendorByName, rotateSigningSecret, VendorError } from "../../src/auth/vendors.ts";
import { signingSecretsAt } from "../../src/callbacks/signing-secrets.ts";
import { op } from "../../src/db/script.ts";
import type { Store } from "../../src/store/index.ts";
import { describeOnBothBackends } from "../helpers/store-backends.ts";

const T0 = Date.UTC(2026, 10, 27, 12);
const DAY = 86_400_000;

describeOnBothBackends("rotateSigningSecret", (backend) => {
  test("the new secret is shown once; the old one signs beside it until now + overlap; the audit entry says until when", async () => {
    const { vendor } = await createVendor(backend.store, "acme", "acme-password", T0);
    const rotated = await rotateSigningSecret(backend.store, "acme", "cli:olivia", DAY, T0 + 1_000);
    expect(rotated.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(rotated.signingSecret).not.toBe(vendor.signingSecret);
    expect(rotated.oldSecretStopsAt).toBe(T0 + 1_000 + DAY);
    const stored = (await findVendorByName(backend.store, "acme"))!;
    expect(stored).toMatchObject({ signingSecret: rotated.signingSecret, previousSigningSecret: vendor.signingSecret, previousSecretUntil: T0 + 1_000 + DAY });
    expect(signingSecretsAt(stored, T0 + 2_000)).toEqual([rotated.signingSecret, vendor.signingSecret]);
    expect(signingSecretsAt(stored, T0 + 1_000 + DAY)).toEqual([rotated.signingSecret]);
    expect(await backend.store.read((t) => op(t.audit.list(10)))).toEqual([
      { actor: "cli:olivia", action: "vendor.rotate-secret", subject: "acme", detail: "old secret signs until 2026-11-28T12:00:01.000Z", at: T0 + 1_000 },
    ]);
  });

  test("an overlap of 0 replaces the secret at once", async () => {
    await createVendor(backend.store, "acme", "acme-password", T0);
    const rotated = await rotateSigningSecret(backend.store, "acme", "cli:olivia", 0, T0 + 1_000);
    expect(rotated.oldSecretStopsAt).toBeNull();
    expect(signingSecretsAt((await findVendorByName(backend.store, "acme"))!, T0 + 1_000)).toEqual([rotated.signingSecret]);
  });

  test("rotating again during the overlap: the second-newest signs beside the newest, the first no more", async () => {
    await createVendor(backend.store, "acme", "acme-password", T0);
    const first = await rotateSigningSecret(backend.store, "acme", "cli:olivia", DAY, T0);
    const second = await rotateSigningSecret(backend.store, "acme", "cli:olivia", DAY, T0 + 60_000);
    expect(signingSecretsAt((await findVendorByName(backend.store, "acme"))!, T0 + 60_000)).toEqual([second.signingSecret, first.signingSecret]);
  });

  test("of two rotations from the same read, the second changes nothing and says so", async () => {
    await createVendor(backend.store, "acme", "acme-password", T0);
    // A barrier: no write until both have read the vendor, so the second write finds the secret it read gone.
    const bothRead = Promise.withResolvers<void>();
    let reads = 0;
    const store: Store = {
      read: async (script) => {
        const answer = await backend.store.read(script);
        if (++reads === 2) bothRead.resolve();
        return answer;
      },
      write: async (script, options) => {
        await bothRead.promise;
        return backend.store.write(script, options);
      },
    };
    const racing = await Promise.allSettled([
      rotateSigningSecret(store, "acme", "cli:olivia", DAY, T0),
      rotateSigningSecret(store, "acme", "cli:oscar", DAY, T0),
    ]);
    const [won, lost] = [racing.filter((r) => r.status === "fulfilled"), racing.filter((r) => r.status === "rejected")];
    expect([won.length, lost.length]).toEqual([1, 1]);
    expect(lost[0]!.reason).toEqual(new VendorError("The signing secret of acme was rotated meanwhile by someone else: nothing was changed."));
    const stored = (await findVendorByName(backend.store, "acme"))!;
    expect(stored.signingSecret).toBe(won[0]!.value.signingSecret);
    expect(await backend.store.read((t) => op(t.audit.list(10)))).toHaveLength(1);
  });

  test("an unknown vendor is an error", async () => {
    await expect(rotateSigningSecret(backend.store, "ghost", "cli:olivia", DAY, T0)).rejects.toThrow("No such vendor: ghost");
  });
});
