// The client whose failed credentials are counted: the socket's peer, or, behind a proxy the
// operator trusts, the right-most X-Forwarded-For hop that is not a trusted proxy.
import { describe, expect, test } from "bun:test";
import { parseAddressRange } from "../../src/config/parse.ts";
import { createClientAddress, receivedRequest, routedFrom } from "../../src/http/client-address.ts";

function clientOf(trustedProxies: string[], peer: string | undefined, forwardedFor?: string) {
  const request = new Request("http://service.test/v1/postLead", { headers: forwardedFor === undefined ? {} : { "x-forwarded-for": forwardedFor } });
  return createClientAddress(trustedProxies, () => peer)(request);
}

describe("without trusted proxies", () => {
  test("the peer is the client, and X-Forwarded-For is ignored", () => {
    expect(clientOf([], "203.0.113.7")).toBe("203.0.113.7");
    expect(clientOf([], "203.0.113.7", "198.51.100.1")).toBe("203.0.113.7");
  });

  test("a request without a socket (the app called directly) counts as one unknown client", () => {
    expect(clientOf([], undefined, "198.51.100.1")).toBe("unknown");
  });
});

describe("with trusted proxies", () => {
  const proxies = ["10.0.0.0/8", "192.0.2.1"];

  test("a trusted peer's X-Forwarded-For names the client: its right-most hop that is not a trusted proxy", () => {
    expect(clientOf(proxies, "192.0.2.1", "198.51.100.9")).toBe("198.51.100.9");
    expect(clientOf(proxies, "10.1.1.1", "198.51.100.9, 10.2.2.2, 192.0.2.1")).toBe("198.51.100.9");
  });

  test("hops the client wrote itself (left of the first untrusted one) prove nothing", () => {
    expect(clientOf(proxies, "192.0.2.1", "1.2.3.4, 198.51.100.9")).toBe("198.51.100.9");
  });

  test("an untrusted peer's X-Forwarded-For is ignored, so it can neither dodge its throttle nor name someone else", () => {
    expect(clientOf(proxies, "203.0.113.7", "198.51.100.9")).toBe("203.0.113.7");
    expect(clientOf(proxies, "203.0.113.7", "10.0.0.5")).toBe("203.0.113.7");
  });

  test("a trusted peer without the header, or with only trusted hops, is its own last known hop", () => {
    expect(clientOf(proxies, "192.0.2.1")).toBe("192.0.2.1");
    expect(clientOf(proxies, "192.0.2.1", "10.0.0.1, 10.0.0.2")).toBe("10.0.0.1");
  });

  test("a hop that is not an address ends the walk at the last trusted hop", () => {
    expect(clientOf(proxies, "192.0.2.1", "198.51.100.9, unknown")).toBe("192.0.2.1");
  });

  test("an IPv4 peer on a dual-stack socket (::ffff:a.b.c.d) matches IPv4 ranges", () => {
    expect(clientOf(proxies, "::ffff:10.0.0.3", "198.51.100.9")).toBe("198.51.100.9");
    expect(clientOf([], "::ffff:203.0.113.7")).toBe("203.0.113.7");
  });
});

test("an IPv6 client is counted by its /64, the block one host usually controls", () => {
  expect(clientOf([], "2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
  expect(clientOf([], "2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
  expect(clientOf([], "2001:db8::1")).toBe("2001:db8:0:0::/64");
  expect(clientOf([], "::1")).toBe("0:0:0:0::/64");
  expect(clientOf(["fd00::/8"], "fd00::5", "2001:DB8:0:7::9")).toBe("2001:db8:0:7::/64");
});

test("a copy of the request made for routing leads back to the request the server received", () => {
  const received = new Request("http://lb/v1/postLead");
  const routed = routedFrom(received, new Request("http://short-host.invalid/v1/postLead", received));
  expect(receivedRequest(routed)).toBe(received);
  expect(receivedRequest(received)).toBe(received);
});

describe("parseAddressRange", () => {
  test.each([
    ["10.0.0.0/8", { address: "10.0.0.0", prefix: 8, family: "ipv4" }],
    ["192.0.2.7", { address: "192.0.2.7", prefix: 32, family: "ipv4" }],
    ["fd00::/8", { address: "fd00::", prefix: 8, family: "ipv6" }],
    [" ::1 ", { address: "::1", prefix: 128, family: "ipv6" }],
  ])("%p", (raw, range) => {
    expect(parseAddressRange(raw)).toEqual(range as ReturnType<typeof parseAddressRange>);
  });

  test.each(["", "lb.internal", "10.0.0.0/33", "fd00::/129", "10.0.0.0/", "10.0.0.0/8/8", "10.0.0.0/x", "300.1.1.1"])("%p is refused", (raw) => {
    expect(() => parseAddressRange(raw)).toThrow("expected an IP address or CIDR range");
  });
});
