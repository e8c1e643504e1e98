// --bootstrap-vendor (issue 26): at creation the vendor's signing secret is printed once, on
// stderr, where a tester copies it for the mock receiver (never into the logs, which are shipped
// and kept); a later start with a vendor of that name leaves it unchanged and logs so, with how
// to get a secret.
import { afterAll, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import { spawnServer } from "../helpers/process.ts";
import { tempDatabasePath } from "../helpers/server.ts";

const temp = tempDatabasePath();
afterAll(() => temp.cleanup());

async function serveOnce(credentials: string) {
  const server = await spawnServer(["--database", temp.path, "--bootstrap-vendor", credentials, "--worker", "false", "--shutdown-drain", "0ms"]);
  expect(await server.stop()).toBe(0);
  return { logs: server.logs, stderr: await new Response(server.process.stderr).text() };
}

function storedVendor(name: string): { signing_secret: string; password_hash: string } {
  const db = openDatabase(temp.path);
  try {
    return db.sqlite.query("SELECT signing_secret, password_hash FROM vendors WHERE name = ?").get(name) as { signing_secret: string; password_hash: string };
  } finally {
    db.close();
  }
}

test("created: its signing secret once on stderr, ready for the mock receiver; the log says it was created, without the secret", async () => {
  const first = await serveOnce("boot-vendor:boot-password-1");
  const { signing_secret: secret } = storedVendor("boot-vendor");
  expect(first.stderr).toBe(
    `Created vendor boot-vendor (--bootstrap-vendor). Its callback signing secret, shown only now: ${secret}  (lead-ingress mock-receiver --secret ${secret})\n`,
  );
  expect(first.logs.find((line) => line.event === "vendor_bootstrapped")).toMatchObject({ vendor: "boot-vendor" });
  expect(JSON.stringify(first.logs)).not.toContain(secret);
});

test("already there: left unchanged (the new password is not applied), the log says so and how to get a secret; no secret printed", async () => {
  const before = storedVendor("boot-vendor");
  const again = await serveOnce("boot-vendor:another-password-2");
  expect(again.stderr).toBe("");
  expect(storedVendor("boot-vendor")).toEqual(before);
  expect(again.logs.find((line) => line.event === "vendor_bootstrap_unchanged")).toMatchObject({
    level: "warn",
    vendor: "boot-vendor",
    action: expect.stringContaining("'lead-ingress vendors rotate-secret boot-vendor' prints a new signing secret"),
  });
  expect(again.logs.some((line) => line.event === "vendor_bootstrapped")).toBe(false);
});
