// The README's newcomer path, with nothing but the product's own commands (the compiled binary in
// CI): create a database and a vendor, start the service and the mock receiver, open the API page,
// send a lead, watch its signed callback arrive, replay every fixture, back the database up.
import { afterAll, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { run } from "../helpers/cli.ts";
import { validLead } from "../helpers/leads.ts";
import { productCommand, spawnServer, type ServerProcess } from "../helpers/process.ts";
import { basicAuth, post, tempDatabasePath } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

const ROOT = join(import.meta.dir, "../..");
const temp = tempDatabasePath();
const running: { kill(): void; exited: Promise<number> }[] = [];
let server: ServerProcess | undefined;

afterAll(async () => {
  await server?.stop();
  for (const child of running) child.kill();
  await Promise.all(running.map((child) => child.exited));
  temp.cleanup();
});

/** Starts `lead-ingress mock-receiver` on a free port and resolves with its URL. */
async function startReceiver(secret: string): Promise<string> {
  const child = Bun.spawn([...productCommand(), "mock-receiver", "--port", "0", "--secret", secret], { cwd: ROOT, stdout: "pipe", stderr: "inherit" });
  running.push(child);
  let text = "";
  const listening = new Promise<string>((resolve, reject) => {
    // Reads its log to the end (so the pipe never fills), resolving at the "listening" line.
    void (async () => {
      for await (const chunk of child.stdout) {
        text += new TextDecoder().decode(chunk);
        const url = /(http:\/\/127\.0\.0\.1:\d+)/.exec(text)?.[1];
        if (url) resolve(url);
      }
      reject(new Error(`mock receiver exited: ${text}`));
    })();
  });
  return listening;
}

test("a newcomer's path through the README, step by step", async () => {
  const database = ["--database", temp.path];
  expect(await run(["migrate", ...database])).toMatchObject({ code: 0 });

  const added = await run(["vendors", "add", "demo", "--password", "demo-password", ...database]);
  expect(added.code).toBe(0);
  const secret = /signing secret:\s+(whsec_\S+)/.exec(added.out)![1]!;

  server = await spawnServer([...database, "--hold-period", "500ms", "--worker-poll-interval", "50ms", "--allow-private-callbacks", "--verify-certificates"]);
  const receiver = await startReceiver(secret);

  const page = await fetch(`${server.url}/swagger`);
  expect(page.status).toBe(200);
  expect(await page.text()).toContain("/swagger/assets/swagger-ui-bundle.js");

  const auth = { authorization: basicAuth("demo", "demo-password") };
  const accepted = await post(
    `${server.url}/v1/postLead`,
    validLead({ call_back_url: `${receiver}/walkthrough`, certificate_url: `${receiver}/certificate` }),
    auth,
  );
  expect(accepted.status).toBe(200);
  let callbacks: any[] = [];
  await waitUntil(async () => (callbacks = (await (await fetch(`${receiver}/_mock/callbacks?path=/walkthrough`)).json()) as any[]).length === 1, 10_000, 100);
  expect(callbacks[0]).toMatchObject({ signature: { valid: true }, json: { lead_id: accepted.body.lead_id, status: "accepted" } });

  const { code, out } = await run([
    "replay",
    "fixtures/",
    "--url",
    server.url,
    "--user",
    "demo",
    "--password",
    "demo-password",
    "--receiver",
    receiver,
    "--with",
    "verify-certificates",
  ]);
  expect({ code, tail: out.trim().split("\n").slice(-3).join("\n") }).toMatchObject({ code: 0 });
  expect(out).not.toContain("FAIL");

  const backupFile = join(temp.path, "..", "backup.db");
  expect(await run(["backup", backupFile, ...database])).toMatchObject({ code: 0 });
  expect(existsSync(backupFile)).toBe(true);
}, 120_000);
