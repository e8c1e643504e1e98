// With --tls-cert and --tls-key the service speaks HTTPS itself (docs/interface.md §1: leads arrive over HTTPS).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../../src/config/index.ts";
import { CALLBACK_TEST_CERT, CALLBACK_TEST_KEY } from "../callbacks/tls-fixture.ts";
import { startApiTestServer, type ApiTestServer } from "../helpers/server.ts";

const dir = mkdtempSync(join(tmpdir(), "lead-ingress-tls-"));
const certFile = join(dir, "cert.pem");
const keyFile = join(dir, "key.pem");
writeFileSync(certFile, CALLBACK_TEST_CERT);
writeFileSync(keyFile, CALLBACK_TEST_KEY);

let server: ApiTestServer;
beforeAll(async () => (server = await startApiTestServer({ tlsCertFile: certFile, tlsKeyFile: keyFile })));
afterAll(() => server.stop());

test("serves HTTPS with the configured certificate", async () => {
  expect(server.url).toStartWith("https://");
  // The fixture certificate names callback.test, so it is trusted by name through `ca`.
  const url = new URL("/v1/prePing", server.url);
  const response = await fetch(url, {
    method: "POST",
    headers: { authorization: server.auth, host: `callback.test:${url.port}` },
    body: JSON.stringify({ phone_number: "2125550100" }),
    tls: { ca: CALLBACK_TEST_CERT, serverName: "callback.test" },
  });
  expect(response.status).toBe(200);
  const plainHttp = await fetch(`http://127.0.0.1:${url.port}/healthz`).then(
    (r) => r.status,
    () => "no answer",
  );
  expect(plainHttp).not.toBe(200);
});

test("one of the two TLS files alone, or an unreadable file, stops the start with a message", () => {
  expect(() => loadConfig({}, ["--tls-cert", certFile])).toThrow("--tls-cert and --tls-key go together");
  expect(() => loadConfig({}, ["--tls-cert", join(dir, "missing.pem"), "--tls-key", keyFile])).toThrow("--tls-cert=");
});
