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

  test("setEnabled, setPasswordHash and setSigningSecret change their field and the update time", async () => {
    const t = backend.tables;
    await t.vendors.insert(vendorRow("acme"));
    await t.vendors.setEnabled("acme", false, 10);
    await t.vendors.setPasswordHash("acme", "new-hash", 20);
    await t.vendors.setSigningSecret("acme", "whsec_new", 30);
    expect(await t.vendors.findByName("acme")).toMatchObject({ enabled: false, passwordHash: "new-hash", signingSecret: "whsec_new", updatedAt: 30 });
    expect(await t.vendors.credentialsOf("acme")).toMatchObject({ enabled: false });
  });
});
