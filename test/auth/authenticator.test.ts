// docs/contract.md §3: Basic credentials belong to a vendor; wrong, unknown, malformed or disabled → null.
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { createAuthenticator, type Authenticator } from "../../src/auth/authenticator.ts";
import { storedCredentials } from "../../src/auth/vendor-credentials.ts";
import { createVendor, findVendorByName, rotatePassword, setVendorEnabled } from "../../src/auth/vendors.ts";
import { storeOn } from "../../src/store/sqlite.ts";
import { openDatabase, type DatabaseHandle } from "../../src/db/client.ts";
import { fakeClock } from "../helpers/clock.ts";

const basic = (name: string, password: string) => `Basic ${Buffer.from(`${name}:${password}`).toString("base64")}`;

let handle: DatabaseHandle;
let auth: Authenticator;

beforeAll(async () => {
  handle = openDatabase(":memory:");
  auth = createAuthenticator(storedCredentials(storeOn(handle.db)));
  await createVendor(storeOn(handle.db), "acme", "acme-password-1");
  await createVendor(storeOn(handle.db), "globex", "globex-password-1");
});

afterAll(() => handle.close());

/** Vendors are read once per turn of the event loop (as the server's reads share a snapshot per turn). */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** The vendor (or null); these tests stay within the failure budgets. */
async function vendorOf(authorization: string | null, authenticator = auth) {
  const result = await authenticator.authenticate(authorization);
  if (result && "retryAfterSeconds" in result) throw new Error("unexpected throttle");
  return result;
}

describe("authenticate", () => {
  test("the right credentials → that vendor", async () => {
    const vendor = await vendorOf(basic("acme", "acme-password-1"));
    expect(vendor?.name).toBe("acme");
    expect(vendor?.id).toBe((await findVendorByName(storeOn(handle.db), "acme"))!.id);
  });

  test("each vendor gets its own identity", async () => {
    expect((await vendorOf(basic("globex", "globex-password-1")))?.name).toBe("globex");
  });

  test("the same credentials again (from the cache) → the same vendor", async () => {
    const first = await vendorOf(basic("acme", "acme-password-1"));
    const second = await vendorOf(basic("acme", "acme-password-1"));
    expect(second?.id).toBe(first!.id);
  });

  test("verified credentials are answered at once, without a promise (the per-request path)", async () => {
    await vendorOf(basic("acme", "acme-password-1"));
    expect(auth.authenticate(basic("acme", "acme-password-1"))).toMatchObject({ name: "acme" });
    // Never seen: argon2 has to run, so the answer is a promise.
    expect(auth.authenticate(basic("acme", "another-wrong-password"))).toBeInstanceOf(Promise);
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
    expect(await vendorOf(header)).toBeNull();
  });

  test("a refusal is repeated for the same wrong credentials (the refusal cache does not flip)", async () => {
    expect(await vendorOf(basic("acme", "wrong-password"))).toBeNull();
    expect(await vendorOf(basic("acme", "wrong-password"))).toBeNull();
    expect((await vendorOf(basic("acme", "acme-password-1")))?.name).toBe("acme");
  });
});

test("the requests of one turn read their vendor once; the next turn reads it again", async () => {
  let reads = 0;
  const counting = createAuthenticator(storedCredentials({ ...storeOn(handle.db), read: (script) => (reads++, storeOn(handle.db).read(script)) }));
  const header = basic("acme", "acme-password-1");
  await counting.authenticate(header);
  await nextTurn();
  reads = 0;
  for (let i = 0; i < 5; i++) expect(counting.authenticate(header)).toMatchObject({ name: "acme" });
  expect(reads).toBe(1);
  await nextTurn();
  counting.authenticate(header);
  expect(reads).toBe(2);
});

test("a header answered once in a turn is answered again without parsing or hashing; the next turn checks it again", async () => {
  const memo = createAuthenticator(storedCredentials(storeOn(handle.db)));
  const header = basic("acme", "acme-password-1");
  await memo.authenticate(header);
  await nextTurn();
  const hash = spyOn(Bun.SHA256, "hash");
  try {
    for (let i = 0; i < 5; i++) expect(memo.authenticate(header)).toMatchObject({ name: "acme" });
    expect(memo.authenticate(basic("acme", "wrong-password"))).toBeInstanceOf(Promise);
    expect(hash).toHaveBeenCalledTimes(2);
    await nextTurn();
    expect(memo.authenticate(header)).toMatchObject({ name: "acme" });
    expect(hash).toHaveBeenCalledTimes(3);
  } finally {
    hash.mockRestore();
  }
});

describe("vendor changes", () => {
  test("a disabled vendor is refused from the next turn of the event loop, even after a cached success, and accepted again once enabled", async () => {
    await createVendor(storeOn(handle.db), "umbrella", "umbrella-password");
    const header = basic("umbrella", "umbrella-password");
    expect((await vendorOf(header))?.name).toBe("umbrella");

    await setVendorEnabled(storeOn(handle.db), "umbrella", false, "test");
    await nextTurn();
    expect(await vendorOf(header)).toBeNull();

    await setVendorEnabled(storeOn(handle.db), "umbrella", true, "test");
    await nextTurn();
    expect((await vendorOf(header))?.name).toBe("umbrella");
  });

  test("a vendor disabled before its first request is refused with the right password", async () => {
    await createVendor(storeOn(handle.db), "hooli", "hooli-password");
    await setVendorEnabled(storeOn(handle.db), "hooli", false, "test");
    expect(await vendorOf(basic("hooli", "hooli-password"))).toBeNull();
  });

  test("after rotatePassword the old password is refused (even cached) and the new one accepted", async () => {
    await createVendor(storeOn(handle.db), "soylent", "soylent-old-password");
    const oldHeader = basic("soylent", "soylent-old-password");
    expect((await vendorOf(oldHeader))?.name).toBe("soylent");

    const { password } = await rotatePassword(storeOn(handle.db), "soylent", "test", "soylent-new-password");
    expect(password).toBe("soylent-new-password");
    expect(await vendorOf(oldHeader)).toBeNull();
    expect((await vendorOf(basic("soylent", "soylent-new-password")))?.name).toBe("soylent");
  });

  test("a password refused before rotation is accepted once it becomes the new password", async () => {
    await createVendor(storeOn(handle.db), "vandelay", "vandelay-password-a");
    const laterHeader = basic("vandelay", "vandelay-password-b");
    expect(await vendorOf(laterHeader)).toBeNull();
    await rotatePassword(storeOn(handle.db), "vandelay", "test", "vandelay-password-b");
    expect((await vendorOf(laterHeader))?.name).toBe("vandelay");
  });

  test("a name refused while unknown is accepted once the vendor is created", async () => {
    const header = basic("wayne", "wayne-password");
    expect(await vendorOf(header)).toBeNull();
    await createVendor(storeOn(handle.db), "wayne", "wayne-password");
    expect((await vendorOf(header))?.name).toBe("wayne");
  });

  test("the stored hash is not the password", async () => {
    const stored = (await findVendorByName(storeOn(handle.db), "acme"))!;
    expect(stored.passwordHash).not.toContain("acme-password-1");
    expect(stored.passwordHash.startsWith("$argon2id$")).toBe(true);
  });
});

test("concurrent first requests with the same credentials share one check", async () => {
  const fresh = createAuthenticator(storedCredentials(storeOn(handle.db)));
  const verify = spyOn(Bun.password, "verify");
  try {
    const results = await Promise.all(Array.from({ length: 8 }, () => vendorOf(basic("acme", "acme-password-1"), fresh)));
    expect(results.map((vendor) => vendor?.name)).toEqual(Array(8).fill("acme"));
    expect(verify).toHaveBeenCalledTimes(1);
  } finally {
    verify.mockRestore();
  }
});

describe("a flood of bad credentials (docs/contract.md §9)", () => {
  const from = (address: string) => () => address;
  const throttled = (seconds: number) => ({ retryAfterSeconds: seconds });

  /** Holds every argon2 check of a password starting "guess" until `release()`; others run for real. */
  function holdGuesses() {
    const realVerify = Bun.password.verify.bind(Bun.password);
    const releases: (() => void)[] = [];
    const verify = spyOn(Bun.password, "verify").mockImplementation((password, hash) =>
      String(password).startsWith("guess") ? new Promise<boolean>((resolve) => releases.push(() => resolve(false))) : realVerify(password, hash),
    );
    return { verify, release: () => releases.splice(0).forEach((release) => release()), restore: () => verify.mockRestore() };
  }

  test("an unknown or disabled name costs no argon2 check; it is answered after a timer, not at once", async () => {
    await createVendor(storeOn(handle.db), "stark", "stark-password");
    await setVendorEnabled(storeOn(handle.db), "stark", false, "test");
    const fresh = createAuthenticator(storedCredentials(storeOn(handle.db)));
    const verify = spyOn(Bun.password, "verify");
    try {
      for (const header of [basic("nobody", "guess-1"), basic("stark", "stark-password")]) {
        const answer = fresh.authenticate(header, from("203.0.113.1"));
        expect(answer).toBeInstanceOf(Promise);
        expect(await answer).toBeNull();
      }
      expect(verify).not.toHaveBeenCalled();
    } finally {
      verify.mockRestore();
    }
  });

  test("failures past an address's budget get 429 with Retry-After; other addresses are not affected; the budget refills", async () => {
    const clock = fakeClock();
    const fresh = createAuthenticator(storedCredentials(storeOn(handle.db)), { clock: clock.now, addressFailures: { burst: 3, perSecond: 1 / 10 } });
    const attacker = from("203.0.113.1");
    for (let i = 0; i < 3; i++) expect(await fresh.authenticate(basic("nobody", `guess-${i}`), attacker)).toBeNull();
    expect(await fresh.authenticate(basic("nobody", "guess-3"), attacker)).toEqual(throttled(10));
    expect(await fresh.authenticate(basic("acme", "wrong-password"), attacker)).toEqual(throttled(10));
    expect(await fresh.authenticate(basic("nobody", "guess-4"), from("198.51.100.2"))).toBeNull();
    clock.advance(10_000);
    expect(await fresh.authenticate(basic("nobody", "guess-5"), attacker)).toBeNull();
  });

  test("credentials this process verified are never throttled, and new valid ones from an address over its budget are still checked", async () => {
    const clock = fakeClock();
    const fresh = createAuthenticator(storedCredentials(storeOn(handle.db)), { clock: clock.now, addressFailures: { burst: 2, perSecond: 1 / 60 } });
    const shared = from("192.0.2.10"); // a load balancer's address, shared by an attacker and two vendors
    expect(await vendorOf(basic("acme", "acme-password-1"), fresh)).toMatchObject({ name: "acme" });
    for (let i = 0; i < 5; i++) await fresh.authenticate(basic("nobody", `guess-${i}`), shared);
    expect(await fresh.authenticate(basic("nobody", "guess-5"), shared)).toEqual(throttled(60));
    expect(fresh.authenticate(basic("acme", "acme-password-1"), shared)).toMatchObject({ name: "acme" });
    expect(await fresh.authenticate(basic("globex", "globex-password-1"), shared)).toMatchObject({ name: "globex" });
  });

  test("a flood of wrong passwords waits in the suspect lane, one check at a time and two places per name; valid credentials from another address are checked apart", async () => {
    const fresh = createAuthenticator(storedCredentials(storeOn(handle.db)));
    const attacker = from("203.0.113.1");
    expect(await fresh.authenticate(basic("nobody", "guess-0"), attacker)).toBeNull(); // now the address has failed lately
    const held = holdGuesses();
    try {
      const flood = Array.from({ length: 30 }, (_, i) => fresh.authenticate(basic("acme", `guess-${i}`), attacker));
      const settled = await Promise.all(flood.map((answer) => Promise.race([answer, Bun.sleep(50).then(() => "waiting")])));
      expect(settled.filter((answer) => answer === "waiting")).toHaveLength(2);
      expect(settled.filter((answer) => typeof answer === "object" && answer !== null && "retryAfterSeconds" in answer)).toHaveLength(28);
      expect(held.verify).toHaveBeenCalledTimes(1);

      expect(await fresh.authenticate(basic("globex", "globex-password-1"), from("198.51.100.2"))).toMatchObject({ name: "globex" });
      held.release();
      await Bun.sleep(0);
      held.release(); // the second waiting guess, now running
      expect(await Promise.all(flood)).toContainEqual(null);
    } finally {
      held.restore();
    }
  });

  test("a vendor name under attack: the attackers' guesses get 429; the real vendor gets in from an address with a failure of its own (a typo)", async () => {
    const clock = fakeClock();
    const fresh = createAuthenticator(storedCredentials(storeOn(handle.db)), { clock: clock.now, nameFailures: { burst: 3, perSecond: 1 / 60 } });
    const attacker = from("203.0.113.1");
    for (let i = 0; i < 3; i++) expect(await fresh.authenticate(basic("acme", `wrong-${i}`), attacker)).toBeNull();
    expect(await fresh.authenticate(basic("acme", "wrong-3"), attacker)).toEqual(throttled(60));
    const vendorAddress = from("198.51.100.2");
    expect(await fresh.authenticate(basic("acme", "acme-pasword-1"), vendorAddress)).toEqual(throttled(60)); // the vendor's typo
    const verify = spyOn(Bun.password, "verify");
    try {
      expect(await fresh.authenticate(basic("acme", "acme-password-1"), vendorAddress)).toMatchObject({ name: "acme" });
      expect(verify).toHaveBeenCalledTimes(1);
    } finally {
      verify.mockRestore();
    }
  });

  test("a refusal from the cache for a known name waits out the same timer as an unknown name", async () => {
    const delays: number[] = [];
    const timers: (() => void)[] = [];
    const sleep = (ms: number) => new Promise<void>((resolve) => (delays.push(ms), timers.push(resolve)));
    const fresh = createAuthenticator(storedCredentials(storeOn(handle.db)), { sleep });
    const address = from("203.0.113.1");
    const firstRefusal = fresh.authenticate(basic("acme", "wrong-password"), address); // argon2 runs
    expect(await firstRefusal).toBeNull();
    expect(delays).toEqual([]);
    await nextTurn();

    const unknown = fresh.authenticate(basic("nobody", "wrong-password"), address) as Promise<unknown>;
    const cached = fresh.authenticate(basic("acme", "wrong-password"), address);
    expect(cached).toBeInstanceOf(Promise);
    expect(delays).toHaveLength(2);
    expect(delays[1]).toBe(delays[0]!);
    const answered: string[] = [];
    void unknown.then(() => answered.push("unknown"));
    void (cached as Promise<unknown>).then(() => answered.push("cached"));
    await Bun.sleep(0);
    expect(answered).toEqual([]);
    timers.splice(0).forEach((fire) => fire());
    expect(await cached).toBeNull();
    expect(await unknown).toBeNull();
  });
});
