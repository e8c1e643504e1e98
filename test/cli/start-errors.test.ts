// serve's start-up errors, as the operator reads them (issue 26): each names the flag to change,
// and the address, port, file or folder it is about. The product runs as its own process.
import { afterAll, expect, test } from "bun:test";
import { generateKeyPairSync } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CALLBACK_TEST_CERT } from "../callbacks/tls-fixture.ts";
import { cli, emptyDatabase, run } from "../helpers/cli.ts";

const database = emptyDatabase();
const dir = mkdtempSync(join(tmpdir(), "lead-ingress-start-errors-"));
afterAll(() => {
  database.cleanup();
  rmSync(dir, { recursive: true, force: true });
});

const serve = (...flags: string[]) => cli(database.path, "serve", "--host", "127.0.0.1", "--port", "0", "--shutdown-drain", "0ms", ...flags);

test("a console port another process holds is reported as the console's, naming --console-port (not the API's --port)", async () => {
  const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
  try {
    expect(await serve("--console-port", String(holder.port))).toEqual({
      code: 1,
      out: expect.any(String),
      err: `Cannot listen on 127.0.0.1:${holder.port} for the console: the port is in use by another process (choose another with --console-port)\n`,
    });
  } finally {
    holder.stop(true);
  }
});

test("--host or --console-host that is not an address of this machine names the flag and the address", async () => {
  expect(await serve("--host", "192.0.2.1")).toMatchObject({
    code: 1,
    err: "Cannot listen on 192.0.2.1:0: 192.0.2.1 is not an address of this machine (choose another with --host)\n",
  });
  expect(await serve("--console-port", "0", "--console-host", "192.0.2.1")).toMatchObject({
    code: 1,
    err: "Cannot listen on 192.0.2.1:0 for the console: 192.0.2.1 is not an address of this machine (choose another with --console-host)\n",
  });
  expect(await serve("--host", "999.1.1.1")).toEqual({
    code: 2,
    out: "",
    err: 'Invalid configuration:\n  - --host="999.1.1.1": expected an IP address of this machine (such as 127.0.0.1, 0.0.0.0 or ::) or a host name\n',
  });
});

test("a TLS key that is no key, or one that does not match the certificate, names --tls-key and the files", async () => {
  const cert = join(dir, "cert.pem");
  const garbage = join(dir, "garbage.key");
  const otherKey = join(dir, "other.key");
  writeFileSync(cert, CALLBACK_TEST_CERT);
  writeFileSync(garbage, "this is not a key\n");
  writeFileSync(otherKey, generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey.export({ type: "pkcs8", format: "pem" }));
  expect(await serve("--tls-cert", cert, "--tls-key", garbage)).toEqual({
    code: 2,
    out: "",
    err: `Invalid configuration:\n  - --tls-key="${garbage}": expected a PEM private key (-----BEGIN PRIVATE KEY-----); ${garbage} holds none\n`,
  });
  const mismatch = await serve("--tls-cert", cert, "--tls-key", otherKey);
  expect(mismatch.code).toBe(1);
  expect(mismatch.err).toStartWith(`Cannot serve HTTPS with --tls-cert ${cert} and --tls-key ${otherKey}: `);
  expect(mismatch.err).toContain("KEY_VALUES_MISMATCH");
});

test("a SQLite database in a folder that does not exist names --database and the folder", async () => {
  const path = join(dir, "no-such-folder", "leads.db");
  expect(await run(["serve", "--host", "127.0.0.1", "--port", "0", "--database", path])).toEqual({
    code: 1,
    out: "",
    err: `Cannot open the SQLite database ${path} (--database): the folder ${join(dir, "no-such-folder")} does not exist\n`,
  });
});

test("a mysql:// URL is refused naming --database (it was taken for a SQLite file's name)", async () => {
  expect(await run(["serve", "--port", "0", "--database", "mysql://app:secret-pw@127.0.0.1/leads"])).toEqual({
    code: 2,
    out: "",
    err: "Invalid configuration:\n  - --database: expected a SQLite file's path or a postgres:// URL (mysql:// is not supported)\n",
  });
});
