// The vendors table, on both backends.
import { expect, test } from "bun:test";
import { describeOnBothBackends } from "../helpers/store-backends.ts";
import { vendorRow } from "../helpers/tables.ts";

describeOnBothBackends("vendors", (backend) => {
  test("insert adds a vendor once: a taken name answers false", async () => {
    const t = backend.tables;
    expect(await t.vendors.insert(vendorRow("acme"))).toBe(true);
    expect(await t.vendors.insert({ ...vendorRow("acme"), id: "another-id" })).toBe(false);
    expect((await t.vendors.list()).map((v) => v.id)).toEqual(["acme"]);
  });

  test("credentialsOf gives the authenticator's domain shape; an unknown name is null", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("acme"));
    expect(await t.vendors.credentialsOf("acme")).toEqual({ id: "acme", name: "acme", passwordHash: "not-a-real-hash", enabled: true });
    expect(await t.vendors.credentialsOf("nobody")).toBeNull();
  });

  test("setEnabled and setPasswordHash change their field and the update time", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("acme"));
    await t.vendors.setEnabled("acme", false, 10);
    await t.vendors.setPasswordHash("acme", "new-hash", 20);
    expect(await t.vendors.findByName("acme")).toMatchObject({ enabled: false, passwordHash: "new-hash", updatedAt: 20 });
    expect(await t.vendors.credentialsOf("acme")).toMatchObject({ enabled: false });
  });

  test("a new vendor has no previous signing secret", async () => {
    await backend.tables.vendors.insert(vendorRow("acme"));
    expect(await backend.tables.vendors.findByName("acme")).toMatchObject({
      signingSecret: "whsec_test",
      previousSigningSecret: null,
      previousSecretUntil: null,
    });
  });

  test("setSigningSecrets sets all three only while the current secret is the one expected (a rotation that came first wins)", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("acme"));
    const first = { signingSecret: "whsec_new", previousSigningSecret: "whsec_test", previousSecretUntil: 86_400_030 };
    expect(await t.vendors.setSigningSecrets("acme", "whsec_test", first, 30)).toBe(true);
    expect(await t.vendors.findByName("acme")).toMatchObject({ ...first, updatedAt: 30 });
    const late = { signingSecret: "whsec_late", previousSigningSecret: "whsec_test", previousSecretUntil: 86_400_040 };
    expect(await t.vendors.setSigningSecrets("acme", "whsec_test", late, 40)).toBe(false);
    expect(await t.vendors.findByName("acme")).toMatchObject({ ...first, updatedAt: 30 });
  });
});
