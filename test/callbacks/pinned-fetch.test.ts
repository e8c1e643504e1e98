// Bun's fetch, pinned to a checked address, against local servers on loopback only. "callback.test"
// resolves nowhere (.test is reserved), so a request that arrives proves fetch never looked it up.
import { afterAll, describe, expect, test } from "bun:test";
import { createServer as createTlsServer } from "node:tls";
import { pinnedFetchInit } from "../../src/callbacks/pinned-fetch.ts";
import { type Lookup, resolveCallbackTarget } from "../../src/callbacks/ssrf.ts";
import { CALLBACK_TEST_CERT, CALLBACK_TEST_KEY } from "./tls-fixture.ts";

type Seen = { method: string; url: string; host: string | null; body: string; signature: string | null };
const seen: Seen[] = [];

async function record(request: Request): Promise<Response> {
  const { pathname } = new URL(request.url);
  seen.push({
    method: request.method,
    url: request.url,
    host: request.headers.get("host"),
    body: await request.text(),
    signature: request.headers.get("webhook-signature"),
  });
  if (pathname === "/redirect") return new Response(null, { status: 302, headers: { location: "http://127.0.0.1:9/elsewhere" } });
  return Response.json({ received: true });
}

const http = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: record });
const https = Bun.serve({ hostname: "127.0.0.1", port: 0, tls: { key: CALLBACK_TEST_KEY, cert: CALLBACK_TEST_CERT }, fetch: record });
const http6 = (() => {
  try {
    return Bun.serve({ hostname: "::1", port: 0, fetch: record });
  } catch {
    return undefined; // no IPv6 loopback on this machine
  }
})();

afterAll(() => {
  http.stop(true);
  https.stop(true);
  http6?.stop(true);
});

const lookup: Lookup = async (hostname) => {
  if (hostname === "callback.test" || hostname === "other.test") return [{ address: "127.0.0.1", family: 4 }];
  if (hostname === "callback6.test") return [{ address: "::1", family: 6 }];
  throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
};

async function pinnedPost(callbackUrl: string, init: BunFetchRequestInit = {}): Promise<Response> {
  const url = new URL(callbackUrl);
  const target = await resolveCallbackTarget(url, { allowPrivate: true, lookup });
  if (!target.ok) throw new Error(target.error);
  const pinned = pinnedFetchInit(url, target, { method: "POST", body: '{"lead_id":"L1"}', headers: { "webhook-signature": "v1,abc" }, ...init });
  return fetch(pinned.url, pinned.init);
}

describe("pinnedFetchInit", () => {
  test("builds the connect URL and keeps the name in Host", () => {
    const { url, init } = pinnedFetchInit(
      new URL("https://callback.test:8443/cb?x=1"),
      { address: "203.0.113.7", family: 4 },
      { proxy: "http://127.0.0.1:3128", tls: { ca: "CA" } },
    );
    expect(url.href).toBe("https://203.0.113.7:8443/cb?x=1");
    expect(new Headers(init.headers).get("host")).toBe("callback.test:8443");
    expect(init.redirect).toBe("manual");
    expect(init.proxy).toBe(false);
    expect(init.tls).toEqual({ ca: "CA", serverName: "callback.test" });
  });

  test("brackets IPv6, and sets no server name for http or IP-literal hosts", () => {
    const v6 = pinnedFetchInit(new URL("http://callback.test/cb"), { address: "2001:db8::1", family: 6 });
    expect(v6.url.href).toBe("http://[2001:db8::1]/cb");
    expect(v6.init.tls).toBeUndefined();
    const literal = pinnedFetchInit(new URL("https://[2001:db8::1]/cb"), { address: "2001:db8::1", family: 6 });
    expect(literal.init.tls).toBeUndefined();
  });

  test("refuses an address the URL cannot carry rather than leave the name unpinned", () => {
    expect(() => pinnedFetchInit(new URL("http://callback.test/cb"), { address: "fe80::1%eth0", family: 6 })).toThrow("Cannot pin callback host callback.test");
  });

  test("http: reaches the checked address with the original Host, path, method and body", async () => {
    const before = seen.length;
    const response = await pinnedPost(`http://callback.test:${http.port}/hooks/lead?vendor=7`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ received: true });
    expect(seen.slice(before)).toEqual([
      {
        method: "POST",
        url: `http://callback.test:${http.port}/hooks/lead?vendor=7`,
        host: `callback.test:${http.port}`,
        body: '{"lead_id":"L1"}',
        signature: "v1,abc",
      },
    ]);
  });

  test("a redirect is answered, not followed", async () => {
    const before = seen.length;
    const response = await pinnedPost(`http://callback.test:${http.port}/redirect`);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("http://127.0.0.1:9/elsewhere");
    expect(seen.length - before).toBe(1);
  });

  test.skipIf(!http6)("http over IPv6", async () => {
    const port = http6?.port ?? 0;
    const before = seen.length;
    const response = await pinnedPost(`http://callback6.test:${port}/v6`);
    expect(response.status).toBe(200);
    expect(seen.slice(before).map((s) => s.host)).toEqual([`callback6.test:${port}`]);
  });

  test("https: the certificate is verified against the original name", async () => {
    const before = seen.length;
    const response = await pinnedPost(`https://callback.test:${https.port}/secure`, { tls: { ca: CALLBACK_TEST_CERT } });
    expect(response.status).toBe(200);
    expect(seen.slice(before).map((s) => s.host)).toEqual([`callback.test:${https.port}`]);
  });

  test("https: a certificate for another name is refused", async () => {
    // Same address and port as the test above, so this also shows that a pooled connection
    // verified for callback.test is not reused for other.test.
    const before = seen.length;
    const attempt = pinnedPost(`https://other.test:${https.port}/secure`, { tls: { ca: CALLBACK_TEST_CERT } });
    await expect(attempt).rejects.toMatchObject({ code: "ERR_TLS_CERT_ALTNAME_INVALID" });
    expect(seen.length).toBe(before);
  });

  test("https: an untrusted certificate is refused", async () => {
    const attempt = pinnedPost(`https://callback.test:${https.port}/secure`);
    await expect(attempt).rejects.toMatchObject({ code: "DEPTH_ZERO_SELF_SIGNED_CERT" });
  });

  test("https: the original name is sent as SNI", async () => {
    const serverNames: (string | false | null)[] = [];
    const server = createTlsServer({ key: CALLBACK_TEST_KEY, cert: CALLBACK_TEST_CERT }, (socket) => {
      serverNames.push(socket.servername);
      socket.end("HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const { port } = server.address() as { port: number };
      const response = await pinnedPost(`https://callback.test:${port}/sni`, { tls: { ca: CALLBACK_TEST_CERT } });
      expect(response.status).toBe(204);
      expect(serverNames).toEqual(["callback.test"]);
    } finally {
      server.close();
    }
  });
});
