// A check's target (src/checks/address.ts): resolved, judged by the callbacks' address rules and
// pinned once per URL for TARGET_TTL_MS, as a resolver's cache would; refusals are not kept; leads
// arriving during a lookup share it, each bounded by its own deadline.
import { expect, test } from "bun:test";
import type { Lookup } from "../../src/callbacks/ssrf.ts";
import { checkAddresses, TARGET_TTL_MS } from "../../src/checks/address.ts";
import { Cancel } from "../../src/checks/cancel.ts";
import { never } from "./fixtures.ts";

function countingLookup(addresses: string[][]) {
  let calls = 0;
  const lookup: Lookup = async () => (addresses[Math.min(calls++, addresses.length - 1)] ?? []).map((address) => ({ address, family: 4 }));
  return { lookup, calls: () => calls };
}

test("a URL's checked address is reused for TARGET_TTL_MS, then looked up again; what connects is the address checked", async () => {
  let now = 0;
  const { lookup, calls } = countingLookup([["93.184.216.34"], ["93.184.216.35"]]);
  const addresses = checkAddresses({ allowPrivate: false, lookup, now: () => now });
  const first = await addresses.target("https://scrub.example/check", never());
  expect(first).toMatchObject({
    ok: true,
    target: { address: "93.184.216.34", port: 443, tls: { serverName: "scrub.example" }, head: "POST /check HTTP/1.1\r\nhost: scrub.example\r\n" },
  });
  now = TARGET_TTL_MS - 1;
  const again = addresses.target("https://scrub.example/check", never());
  expect(again).toBe(first); // known: no lookup, no promise
  expect(calls()).toBe(1);
  now = TARGET_TTL_MS;
  const later = await addresses.target("https://scrub.example/check", never());
  expect(later.ok && later.target.address).toBe("93.184.216.35");
  expect(calls()).toBe(2);
});

test("a refused address is not kept: the next lead judges the URL again, and a private address stays refused", async () => {
  const { lookup, calls } = countingLookup([["10.1.2.3"], ["10.1.2.3"], ["93.184.216.34"]]);
  const addresses = checkAddresses({ allowPrivate: false, lookup, now: () => 0 });
  const refused = { ok: false as const, error: "Refused check address 10.1.2.3 (private), resolved from scrub.internal" };
  expect(await addresses.target("https://scrub.internal/check", never())).toEqual(refused);
  expect(await addresses.target("https://scrub.internal/check", never())).toEqual(refused);
  expect(await addresses.target("https://scrub.internal/check", never())).toMatchObject({ ok: true });
  expect(calls()).toBe(3);
  expect(await addresses.target("http://127.0.0.1:9/check", never())).toEqual({ ok: false, error: "Refused check address 127.0.0.1 (loopback)" });
  expect(await addresses.target("not a url", never())).toEqual({ ok: false, error: "Invalid check URL not a url" });
});

test("leads arriving during a lookup share it; one whose deadline ends stops waiting without ending the others'", async () => {
  let release: (value: { address: string; family: number }[]) => void = () => {};
  let calls = 0;
  const lookup: Lookup = () => {
    calls++;
    return new Promise((resolve) => (release = resolve));
  };
  const addresses = checkAddresses({ allowPrivate: false, lookup });
  const impatient = new Cancel();
  const waits = [addresses.target("https://scrub.example/a", never()), addresses.target("https://scrub.example/a", impatient)];
  impatient.cancel();
  await expect(waits[1]).rejects.toThrow("aborted");
  release([{ address: "93.184.216.34", family: 4 }]);
  expect(await waits[0]).toMatchObject({ ok: true });
  expect(calls).toBe(1);
});

test("clear forgets what is known: the next lead looks the URL up again", async () => {
  const { lookup, calls } = countingLookup([["93.184.216.34"]]);
  const addresses = checkAddresses({ allowPrivate: false, lookup, now: () => 0 });
  await addresses.target("https://scrub.example/check", never());
  addresses.clear();
  await addresses.target("https://scrub.example/check", never());
  expect(calls()).toBe(2);
});
