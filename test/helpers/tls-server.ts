// A test server speaking HTTPS with the fixture certificate (it names callback.test), and a fetch
// that trusts it by name.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config } from "../../src/config/index.ts";
import { CALLBACK_TEST_CERT, CALLBACK_TEST_KEY } from "../callbacks/tls-fixture.ts";
import { startApiTestServer, type ApiTestServer } from "./server.ts";

/** Runs `use` with a server under TLS (and `overrides`), then stops it and deletes its certificate files. */
export async function withTlsTestServer(overrides: Partial<Config>, use: (server: ApiTestServer) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "lead-ingress-tls-"));
  const [certFile, keyFile] = [join(dir, "cert.pem"), join(dir, "key.pem")];
  writeFileSync(certFile, CALLBACK_TEST_CERT);
  writeFileSync(keyFile, CALLBACK_TEST_KEY);
  const server = await startApiTestServer({ ...overrides, tlsCertFile: certFile, tlsKeyFile: keyFile });
  try {
    await use(server);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A form POSTed over TLS to the fixture's server, trusted by the certificate's name; redirects not followed. */
export const postFormTrusted = (url: string, form: Record<string, string>): Promise<Response> =>
  fetch(url, {
    method: "POST",
    body: new URLSearchParams(form).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
    redirect: "manual",
    tls: { ca: CALLBACK_TEST_CERT, serverName: "callback.test" },
  });
