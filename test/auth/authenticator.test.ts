// CONTRACT §3: Basic credentials belong to a vendor; wrong, unknown, malformed or disabled → null.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAuthenticator, type Authenticator } from "../../src/auth/authenticator.ts";
import { createVendor, findVendorByName, rotatePassword, setVendorEnabled } from "../../src/auth/vendors.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";

const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`;

let handle: DatabaseHandle;
let auth: Authenticator;

beforeAll(async () => {
  handle = openDatabase(":memory:");
  auth = createAuthenticator(handle.db);
  await createVendor(handle.db, "acme", "acme-password-1");
  await createVendor(handle.db, "globex", "globex-password-1");
});

afterAll(() => handle.close());

describe("authenticate", () => {
  test("the right credentials → that vendor", async () => {
    const vendor = await auth.authenticate(basic("acme", "acme-password-1"));
    expect(vendor?.name).toBe("acme");
    expect(vendor?.id).toBe(findVendorByName(handle.db, "acme")!.id);
  });

  test("each vendor gets its own identity", async () => {
    expect((await auth.authenticate(basic("globex", "globex-password-1")))?.name).toBe("globex");
  });

  test("the same credentials again (from the cache) → the same vendor", async () => {
    const first = await auth.authenticate(basic("acme", "acme-password-1"));
    const second = await auth.authenticate(basic("acme", "acme-password-1"));
    expect(second?.id).toBe(first!.id);
  });

  test.each([
    ["a wrong password", basic("acme", "acme-password-2")],
    ["another vendor's password", basic("acme", "globex-password-1")],
    ["an empty password", basic("acme", "")],
    ["an unknown vendor", basic("initech", "acme-password-1")],
    ["the name in another case", basic("ACME", "acme-password-1")],
    ["no header", null],
    ["a malformed header", "Basic !!!"],
    ["another scheme", "Bearer acme-password-1"],
    ["credentials without a colon", `Basic ${Buffer.from("acmeacme-password-1").toString("base64")}`],
  ])("%s → null", async (_what, header) => {
    expect(await auth.authenticate(header)).toBeNull();
  });

  test("a refusal is repeated for the same wrong credentials (the refusal cache does not flip)", async () => {
    expect(await auth.authenticate(basic("acme", "wrong-password"))).toBeNull();
    expect(await auth.authenticate(basic("acme", "wrong-password"))).toBeNull();
    expect((await auth.authenticate(basic("acme", "acme-password-1")))?.name).toBe("acme");
  });
});

describe("vendor changes", () => {
  test("a disabled vendor is refused even after a cached success, and accepted again once enabled", async () => {
    await createVendor(handle.db, "umbrella", "umbrella-password");
    const header = basic("umbrella", "umbrella-password");
    expect((await auth.authenticate(header))?.name).toBe("umbrella");

    setVendorEnabled(handle.db, "umbrella", false);
    expect(await auth.authenticate(header)).toBeNull();

    setVendorEnabled(handle.db, "umbrella", true);
    expect((await auth.authenticate(header))?.name).toBe("umbrella");
  });

  test("a vendor disabled before its first request is refused with the right password", async () => {
    await createVendor(handle.db, "hooli", "hooli-password");
    setVendorEnabled(handle.db, "hooli", false);
    expect(await auth.authenticate(basic("hooli", "hooli-password"))).toBeNull();
  });

  test("after rotatePassword the old password is refused (even cached) and the new one accepted", async () => {
    await createVendor(handle.db, "soylent", "soylent-old-password");
    const oldHeader = basic("soylent", "soylent-old-password");
    expect((await auth.authenticate(oldHeader))?.name).toBe("soylent");

    const { password } = await rotatePassword(handle.db, "soylent", "soylent-new-password");
    expect(password).toBe("soylent-new-password");
    expect(await auth.authenticate(oldHeader)).toBeNull();
    expect((await auth.authenticate(basic("soylent", "soylent-new-password")))?.name).toBe("soylent");
  });

  test("a password refused before rotation is accepted once it becomes the new password", async () => {
    await createVendor(handle.db, "vandelay", "vandelay-password-a");
    const laterHeader = basic("vandelay", "vandelay-password-b");
    expect(await auth.authenticate(laterHeader)).toBeNull();
    await rotatePassword(handle.db, "vandelay", "vandelay-password-b");
    expect((await auth.authenticate(laterHeader))?.name).toBe("vandelay");
  });

  test("a name refused while unknown is accepted once the vendor is created", async () => {
    const header = basic("wayne", "wayne-password");
    expect(await auth.authenticate(header)).toBeNull();
    await createVendor(handle.db, "wayne", "wayne-password");
    expect((await auth.authenticate(header))?.name).toBe("wayne");
  });

  test("the stored hash is not the password", () => {
    const stored = findVendorByName(handle.db, "acme")!;
    expect(stored.passwordHash).not.toContain("acme-password-1");
    expect(stored.passwordHash.startsWith("$argon2id$")).toBe(true);
  });
});
