import { describe, expect, test } from "bun:test";
import { type AddressClass, classifyAddress, literalHostRefusal, type Lookup, type RefusalReason, resolveCallbackTarget } from "../../src/callbacks/ssrf.ts";

const ADDRESSES: [string, AddressClass][] = [
  // IPv4
  ["8.8.8.8", "public"],
  ["1.1.1.1", "public"],
  ["93.184.216.34", "public"],
  ["0.0.0.0", "unspecified"],
  ["0.1.2.3", "unspecified"],
  ["10.0.0.5", "private"],
  ["10.255.255.255", "private"],
  ["100.63.255.255", "public"],
  ["100.64.0.1", "cgnat"],
  ["100.127.255.254", "cgnat"],
  ["100.128.0.0", "public"],
  ["100.100.100.200", "metadata"],
  ["127.0.0.1", "loopback"],
  ["127.255.255.254", "loopback"],
  ["169.254.169.254", "metadata"],
  ["169.254.1.1", "link-local"],
  ["168.63.129.16", "metadata"],
  ["172.15.255.255", "public"],
  ["172.16.0.1", "private"],
  ["172.31.255.255", "private"],
  ["172.32.0.0", "public"],
  ["192.0.0.8", "reserved"],
  ["192.0.0.192", "reserved"],
  ["192.0.2.1", "documentation"],
  ["192.88.99.1", "reserved"],
  ["192.168.1.1", "private"],
  ["192.169.0.1", "public"],
  ["198.18.0.1", "benchmarking"],
  ["198.19.255.255", "benchmarking"],
  ["198.20.0.0", "public"],
  ["198.51.100.7", "documentation"],
  ["203.0.113.9", "documentation"],
  ["224.0.0.1", "multicast"],
  ["239.255.255.250", "multicast"],
  ["240.0.0.1", "reserved"],
  ["255.255.255.254", "reserved"],
  ["255.255.255.255", "broadcast"],
  // IPv6
  ["2606:4700:4700::1111", "public"],
  ["2001:4860:4860::8888", "public"],
  ["::", "unspecified"],
  ["::1", "loopback"],
  ["[::1]", "loopback"],
  ["0:0:0:0:0:0:0:1", "loopback"],
  ["::ffff:127.0.0.1", "loopback"],
  ["::ffff:7f00:1", "loopback"],
  ["::ffff:10.1.2.3", "private"],
  ["::ffff:a9fe:a9fe", "metadata"],
  ["::ffff:8.8.8.8", "public"],
  ["::127.0.0.1", "loopback"],
  ["::10.0.0.1", "private"],
  ["::8.8.8.8", "reserved"],
  ["64:ff9b::8.8.8.8", "public"],
  ["64:ff9b::7f00:1", "loopback"],
  ["64:ff9b::192.168.0.1", "private"],
  ["64:ff9b::a9fe:a9fe", "metadata"],
  ["64:ff9b:1::1", "reserved"],
  ["2002:0808:0808::1", "public"],
  ["2002:7f00:1::1", "loopback"],
  ["2002:c0a8:101::1", "private"],
  ["2002:a9fe:a9fe::", "metadata"],
  ["100::1", "reserved"],
  ["2001::1", "reserved"],
  ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "reserved"],
  ["2001:db8::1", "documentation"],
  ["3fff::1", "documentation"],
  ["fc00::1", "private"],
  ["fd12:3456:789a::1", "private"],
  ["fd00:ec2::254", "metadata"],
  ["fd00:ec2::253", "private"],
  ["fe80::1", "link-local"],
  ["fe80::1%eth0", "link-local"],
  ["febf:ffff::1", "link-local"],
  ["fec0::1", "site-local"],
  ["ff02::1", "multicast"],
  ["ff0e::1", "multicast"],
  ["4000::1", "reserved"],
  ["5f00::1", "reserved"],
  // not addresses
  ["localhost", "invalid"],
  ["1.2.3", "invalid"],
  ["256.1.1.1", "invalid"],
  ["", "invalid"],
];

describe("classifyAddress", () => {
  test.each(ADDRESSES)("%p is %p", (ip, expected) => {
    expect(classifyAddress(ip)).toBe(expected);
  });

  test("the table is big enough to mean something", () => {
    expect(ADDRESSES.filter(([ip]) => ip.includes(".") && !ip.includes(":")).length).toBeGreaterThanOrEqual(20);
    expect(ADDRESSES.filter(([ip]) => ip.includes(":")).length).toBeGreaterThanOrEqual(20);
  });
});

/** A resolver that knows a few names and nothing else; no test leaves the machine. */
function fakeLookup(names: Record<string, string[]>): Lookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string) => {
    calls.push(hostname);
    const addresses = names[hostname];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
  return Object.assign(lookup, { calls });
}

const lookup = fakeLookup({
  "vendor.example": ["93.184.216.34", "2606:2800:220:1:248:1893:25c8:1946"],
  "internal.example": ["10.0.0.5"],
  "mixed.example": ["93.184.216.34", "192.168.1.10"],
  "mixed6.example": ["2606:4700:4700::1111", "::ffff:127.0.0.1"],
  "metadata.example": ["169.254.169.254"],
  "empty.example": [],
});

describe("resolveCallbackTarget", () => {
  test("a name with only public addresses gives its first address", async () => {
    const target = await resolveCallbackTarget(new URL("https://vendor.example/cb"), { allowPrivate: false, lookup });
    expect(target).toEqual({ ok: true, address: "93.184.216.34", family: 4 });
  });

  test("a name with a private address is refused, with the error to record", async () => {
    const target = await resolveCallbackTarget(new URL("https://internal.example/cb"), { allowPrivate: false, lookup });
    expect(target).toEqual({ ok: false, error: "Refused callback address 10.0.0.5 (private), resolved from internal.example" });
  });

  test("one public and one private address: refused", async () => {
    expect(await resolveCallbackTarget(new URL("https://mixed.example/"), { allowPrivate: false, lookup })).toEqual({
      ok: false,
      error: "Refused callback address 192.168.1.10 (private), resolved from mixed.example",
    });
    expect(await resolveCallbackTarget(new URL("https://mixed6.example/"), { allowPrivate: false, lookup })).toEqual({
      ok: false,
      error: "Refused callback address ::ffff:127.0.0.1 (loopback), resolved from mixed6.example",
    });
  });

  test("metadata address refused", async () => {
    const target = await resolveCallbackTarget(new URL("http://metadata.example/latest"), { allowPrivate: false, lookup });
    expect(target).toEqual({ ok: false, error: "Refused callback address 169.254.169.254 (metadata), resolved from metadata.example" });
  });

  test("allowPrivate lets private and mixed names through", async () => {
    expect(await resolveCallbackTarget(new URL("https://internal.example/"), { allowPrivate: true, lookup })).toEqual({
      ok: true,
      address: "10.0.0.5",
      family: 4,
    });
    expect(await resolveCallbackTarget(new URL("https://mixed.example/"), { allowPrivate: true, lookup })).toEqual({
      ok: true,
      address: "93.184.216.34",
      family: 4,
    });
  });

  test("IP-literal hosts are classified without a lookup", async () => {
    const counting = fakeLookup({});
    const cases: [string, boolean, unknown][] = [
      ["http://10.0.0.5:8080/cb", false, { ok: false, error: "Refused callback address 10.0.0.5 (private)" }],
      ["http://[::1]:9090/cb", false, { ok: false, error: "Refused callback address ::1 (loopback)" }],
      ["http://[::ffff:127.0.0.1]/", false, { ok: false, error: "Refused callback address ::ffff:7f00:1 (loopback)" }],
      ["http://[fd00:ec2::254]/", false, { ok: false, error: "Refused callback address fd00:ec2::254 (metadata)" }],
      // WHATWG URL parsing turns these spellings of 127.0.0.1 into the dotted form first.
      ["http://2130706433/", false, { ok: false, error: "Refused callback address 127.0.0.1 (loopback)" }],
      ["http://0x7f.1/", false, { ok: false, error: "Refused callback address 127.0.0.1 (loopback)" }],
      ["https://8.8.8.8/cb", false, { ok: true, address: "8.8.8.8", family: 4 }],
      ["https://[2606:4700:4700::1111]/cb", false, { ok: true, address: "2606:4700:4700::1111", family: 6 }],
      ["http://[::1]:9090/cb", true, { ok: true, address: "::1", family: 6 }],
      ["http://127.0.0.1:9090/cb", true, { ok: true, address: "127.0.0.1", family: 4 }],
    ];
    for (const [url, allowPrivate, expected] of cases) {
      expect(await resolveCallbackTarget(new URL(url), { allowPrivate, lookup: counting })).toEqual(expected as never);
    }
    expect(counting.calls).toEqual([]);
  });

  test("names that do not resolve, or resolve to nothing, are errors", async () => {
    expect(await resolveCallbackTarget(new URL("https://nowhere.example/"), { allowPrivate: true, lookup })).toEqual({
      ok: false,
      error: "Could not resolve callback host nowhere.example: ENOTFOUND",
    });
    expect(await resolveCallbackTarget(new URL("https://empty.example/"), { allowPrivate: true, lookup })).toEqual({
      ok: false,
      error: "Could not resolve callback host empty.example: no addresses",
    });
  });

  test("only http and https are callback schemes", async () => {
    expect(await resolveCallbackTarget(new URL("ftp://vendor.example/"), { allowPrivate: true, lookup })).toEqual({
      ok: false,
      error: "Refused callback URL scheme ftp:",
    });
    expect(await resolveCallbackTarget(new URL("file:///etc/passwd"), { allowPrivate: true, lookup })).toEqual({
      ok: false,
      error: "Refused callback URL scheme file:",
    });
  });

  test("the default lookup is the system resolver: localhost is loopback", async () => {
    const target = await resolveCallbackTarget(new URL("http://localhost:9090/cb"), { allowPrivate: false });
    expect(target.ok).toBe(false);
    if (!target.ok) expect(target.error).toMatch(/^Refused callback address (127\.0\.0\.1|::1) \(loopback\), resolved from localhost$/);
    const allowed = await resolveCallbackTarget(new URL("http://localhost:9090/cb"), { allowPrivate: true });
    expect(allowed.ok).toBe(true);
  });
});

describe("literalHostRefusal (intake's check, before any lookup)", () => {
  test.each([
    ["http://localhost/", "loopback"],
    ["http://Api.LocalHost./", "loopback"],
    ["http://0x7f000001/", "loopback"],
    ["http://017700000001/", "loopback"],
    ["http://[0:0:0:0:0:0:0:1]/", "loopback"],
    ["http://[::ffff:a00:1]/", "private"],
    ["http://169.254.169.254/", "metadata"],
    ["http://0/", "unspecified"],
    ["http://93.184.216.34/", null],
    ["http://vendor.example/", null],
    ["http://notlocalhost/", null],
  ])("%p → %p", (url, expected) => {
    expect(literalHostRefusal(new URL(url).hostname)).toBe(expected as RefusalReason | null);
  });
});
