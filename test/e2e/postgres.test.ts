// The service and its CLI on PostgreSQL (issue 17): the README's walkthrough, a lead decided and
// called back, readiness while the database is away and after, the operator commands against a
// URL, and a vendor disabled from the CLI refused by the running instance within two seconds.
// The service reaches the cluster through a TCP relay the test can cut, as a database host that
// goes away would be (refused connections, dropped sockets).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import type { Socket, TCPSocketListener } from "bun";
import { op } from "../../src/db/script.ts";
import { startMockReceiver, type MockReceiver } from "../../src/mock-receiver/index.ts";
import { run } from "../helpers/cli.ts";
import { productCommand, spawnServer } from "../helpers/process.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { findPgBinaries, startPgCluster, type PgCluster } from "../helpers/pg-cluster.ts";
import { basicAuth, get, post, startTestServer, VENDOR, type ApiTestServer } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

/**
 * Forwards 127.0.0.1:port to the cluster; `cut()` closes the listener and every relayed socket,
 * `restore()` listens again. `swallow()` is a network partition: connections are still accepted
 * and kept open, but nothing is forwarded either way (until `cut()`).
 */
interface Relay {
  port: number;
  cut(): void;
  restore(): void;
  swallow(): void;
}

function startRelay(targetPort: number): Relay {
  const open = new Set<Socket<unknown>>();
  let swallowing = false;
  type Side = { peer?: Socket<unknown>; pending: Uint8Array[] };
  let listener: TCPSocketListener<Side> | undefined;
  const listen = (port: number) =>
    Bun.listen<Side>({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(client) {
          client.data = { pending: [] };
          open.add(client);
          void Bun.connect<Side>({
            hostname: "127.0.0.1",
            port: targetPort,
            data: { peer: client, pending: [] },
            socket: {
              open(server) {
                open.add(server);
                client.data.peer = server;
                for (const chunk of client.data.pending) server.write(chunk);
              },
              data: (server, chunk) => void (swallowing || server.data.peer?.write(chunk)),
              close(server) {
                open.delete(server);
                server.data.peer?.end();
              },
              error: (server) => void server.data.peer?.end(),
            },
          }).catch(() => client.end());
        },
        data(client, chunk) {
          if (swallowing) return;
          if (client.data.peer) client.data.peer.write(chunk);
          else client.data.pending.push(new Uint8Array(chunk));
        },
        close(client) {
          open.delete(client);
          client.data.peer?.end();
        },
      },
    });
  listener = listen(0);
  const port = listener.port;
  return {
    port,
    cut() {
      listener?.stop(true);
      listener = undefined;
      for (const socket of open) socket.terminate();
      open.clear();
      swallowing = false;
    },
    swallow() {
      swallowing = true;
    },
    restore() {
      listener ??= listen(port);
    },
  };
}

let cluster: PgCluster;
let relay: Relay;
let databaseUrl: string;
let server: ApiTestServer;
let receiver: MockReceiver;
const auth = () => ({ authorization: server.auth });

beforeAll(async () => {
  cluster = await startPgCluster();
  const direct = new URL(await cluster.createDatabase());
  relay = startRelay(Number(direct.port));
  direct.port = String(relay.port);
  databaseUrl = direct.toString();
  server = await startTestServer({
    databasePath: databaseUrl as `postgres://${string}`,
    holdPeriodMs: 100,
    workerPollIntervalMs: 20,
    allowPrivateCallbacks: true,
    databasePoolSize: 4,
  });
  const vendor = await server.store.read((t) => op(t.vendors.findByName(VENDOR.name)));
  receiver = startMockReceiver({ secret: vendor!.signingSecret });
});

afterAll(async () => {
  await server?.stop();
  await receiver?.stop();
  relay?.cut();
  await cluster?.stop();
});

describe("the README walkthrough on PostgreSQL", () => {
  test("prePing 200, postLead 200 with a lead_id, another lead for that phone 422, the lead looked up", async () => {
    const phone = uniquePhone();
    const prePing = await post(`${server.url}/v1/prePing`, { phone_number: phone }, auth());
    expect([prePing.status, prePing.body.can_post_phone_bit]).toEqual([200, true]);
    const accepted = await post(`${server.url}/v1/postLead`, validLead({ phone_number: phone }), auth());
    expect(accepted.status).toBe(200);
    expect(accepted.body.lead_id).toMatch(/^[0-9a-f-]{36}$/);
    const duplicate = await post(`${server.url}/v1/postLead`, validLead({ phone_number: phone, customer_name: "Someone Else" }), auth());
    expect([duplicate.status, duplicate.body.success_bit]).toEqual([422, false]);
    const lookup = await get(`${server.url}/v1/leads/${accepted.body.lead_id}`, auth());
    expect(lookup.status).toBe(200);
    expect(lookup.body.lead_id).toBe(accepted.body.lead_id);
  });

  test("a lead with several invalid fields: 400 naming each of them", async () => {
    const answer = await post(`${server.url}/v1/postLead`, validLead({ phone_number: "12", email: "nope" }), auth());
    expect(answer.status).toBe(400);
    expect(answer.body.message.length).toBeGreaterThanOrEqual(2);
  });

  test("a lead with U+0000 in a string field: 400 naming the field, as on SQLite (PostgreSQL's text cannot store it)", async () => {
    const answer = await post(`${server.url}/v1/postLead`, validLead({ phone_number: uniquePhone(), customer_name: "a\u0000b" }), auth());
    expect([answer.status, answer.body]).toEqual([400, { success_bit: false, message: [{ error: "Invalid Characters (U+0000): customer_name" }] }]);
  });

  test("an accepted lead is decided after its hold and called back, signed, to the receiver", async () => {
    const path = `/pg/${crypto.randomUUID()}`;
    const accepted = await post(
      `${server.url}/v1/postLead`,
      validLead({ phone_number: uniquePhone(), call_back_url: `${receiver.url.origin}${path}` }),
      auth(),
    );
    expect(accepted.status).toBe(200);
    const [received] = await receiver.waitFor(1, { path });
    expect(received!.signature).toEqual({ valid: true });
    expect(received!.json).toMatchObject({ lead_id: accepted.body.lead_id, status: "accepted" });
    const lookup = await get(`${server.url}/v1/leads/${accepted.body.lead_id}`, auth());
    expect(lookup.body.status).toBe("accepted");
  });
});

describe("the database goes away and comes back", () => {
  test("/readyz is 503 and postLead 503 in the envelope while it is away; both recover once it is back, and the lead answered 200 is stored", async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    relay.cut();
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      const refused = await post(`${server.url}/v1/postLead`, validLead({ phone_number: uniquePhone() }), auth());
      expect(refused.status).toBe(503);
      expect(refused.body).toEqual({ success_bit: false, message: [{ error: "Service temporarily unavailable" }] });
    } finally {
      relay.restore();
    }
    await waitUntil(async () => (await fetch(`${server.url}/readyz`)).status === 200, 10_000, 50);
    const accepted = await post(`${server.url}/v1/postLead`, validLead({ phone_number: uniquePhone() }), auth());
    expect(accepted.status).toBe(200);
    expect((await get(`${server.url}/v1/leads/${accepted.body.lead_id}`, auth())).status).toBe(200);
  });

  test("on a network partition (packets swallowed, not refused) /readyz answers 503 within seconds, not after TCP's timeout", async () => {
    expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    relay.swallow();
    try {
      const since = performance.now();
      expect((await fetch(`${server.url}/readyz`)).status).toBe(503);
      expect(performance.now() - since).toBeLessThan(10_000); // bounded (2 s); without a bound it waits for TCP, minutes
    } finally {
      relay.cut(); // the swallowed connections end, and with them the queries waiting on them
      relay.restore();
    }
    await waitUntil(async () => (await fetch(`${server.url}/readyz`)).status === 200, 10_000, 50);
  });
});

describe("operator commands against a PostgreSQL URL", () => {
  test("vendors add and list, leads list, suppress add (then the service refuses the number)", async () => {
    const added = await run(["vendors", "add", "pg-cli-vendor", "--password", "pg-cli-password", "--database", databaseUrl]);
    expect(added.err).toBe("");
    expect(added.code).toBe(0);
    const listed = await run(["vendors", "list", "--json", "--database", databaseUrl]);
    expect(JSON.parse(listed.out).map((v: { name: string }) => v.name)).toEqual(expect.arrayContaining([VENDOR.name, "pg-cli-vendor"]));
    const leads = await run(["leads", "list", "--json", "--database", databaseUrl]);
    expect(leads.code).toBe(0);
    expect(JSON.parse(leads.out).length).toBeGreaterThan(0);
    const phone = uniquePhone();
    const suppressed = await run(["suppress", "add", phone, "--reason", "asked", "--database", databaseUrl]);
    expect([suppressed.code, suppressed.out]).toEqual([0, expect.stringContaining("Added")]);
    const prePing = await post(`${server.url}/v1/prePing`, { phone_number: phone }, auth());
    expect(prePing.status).toBe(422);
  });

  test("suppress import: a CSV file's numbers are listed, all or none", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lead-ingress-pg-import-"));
    try {
      const [a, b] = [uniquePhone(), uniquePhone()];
      const good = join(dir, "good.csv");
      await Bun.write(good, `phone,reason\n${a},first\n${b},\n${a},again\n`);
      const imported = await run(["suppress", "import", good, "--database", databaseUrl]);
      expect([imported.code, imported.err]).toEqual([0, ""]);
      expect(imported.out).toContain("3 rows, 2 added, 1 already listed");
      const bad = join(dir, "bad.csv");
      const c = uniquePhone();
      await Bun.write(bad, `phone\n${c}\nnot-a-number\n`);
      expect((await run(["suppress", "import", bad, "--database", databaseUrl])).code).toBe(1);
      const listed = JSON.parse((await run(["suppress", "list", "--json", "--database", databaseUrl])).out) as { phone: string; reason: string | null }[];
      const e164 = (phone: string) => `+1${phone.replace(/\D/g, "")}`;
      const reasons = new Map(listed.map((entry) => [entry.phone, entry.reason]));
      expect([a, b, c].map((phone) => reasons.get(e164(phone)))).toEqual(["first", null, undefined]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("backup runs pg_dump when it is on PATH, and says how to when it is not", async () => {
    const dir = mkdtempSync(join(tmpdir(), "lead-ingress-pg-backup-"));
    const backup = async (file: string, path: string, database = databaseUrl) => {
      const child = Bun.spawn([...productCommand(), "backup", join(dir, file), "--database", database], {
        env: { ...Bun.env, PATH: path },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      return { code, out, err };
    };
    try {
      const withPassword = new URL(databaseUrl);
      withPassword.password = "s3cret-in-url";
      const explained = await backup("none.dump", dir, withPassword.toString()); // a PATH with no pg_dump on it
      expect(explained.code).toBe(2);
      expect(explained.err).toContain("PGPASSWORD=… pg_dump --format=custom");
      // The printed URL has no password at all: one in the URL (even masked) would override PGPASSWORD.
      const printedUrl = new URL(/'(postgres:\/\/[^']+)'/.exec(explained.err)![1]!);
      expect([printedUrl.username, printedUrl.password]).toEqual([withPassword.username, ""]);
      // The cluster's own pg_dump when its binaries have one (pg_dump refuses a newer server).
      const { bin } = findPgBinaries();
      const pgDumpDir = existsSync(join(bin, "pg_dump")) ? bin : dirname(Bun.which("pg_dump") ?? "/usr/bin/pg_dump");
      const done = await backup("leads.dump", pgDumpDir);
      expect([done.code, done.err]).toEqual([0, ""]);
      expect((await Bun.file(join(dir, "leads.dump")).bytes()).subarray(0, 5)).toEqual(new TextEncoder().encode("PGDMP"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an operator command on an unreachable server: exit 1 with serve's message, which does not show the password", async () => {
    const wrong = new URL(databaseUrl);
    wrong.port = "1"; // nothing listens there
    wrong.password = "s3cret-in-url";
    const answer = await run(["vendors", "list", "--database", wrong.toString()]);
    expect(answer.code).toBe(1);
    expect(answer.err.trim()).toBe(`could not open PostgreSQL at 127.0.0.1:1${wrong.pathname}: Failed to connect`);
    expect(answer.err + answer.out).not.toContain("s3cret-in-url");
  });

  test("a vendor disabled from the CLI is refused by the running instance within two seconds", async () => {
    const created = await run(["vendors", "add", "pg-disabled-vendor", "--password", "pg-disabled-password", "--database", databaseUrl]);
    expect(created.code).toBe(0);
    const vendorAuth = { authorization: basicAuth("pg-disabled-vendor", "pg-disabled-password") };
    // An unknown lead: 404 to the vendor, 401 once it is refused.
    const lookup = async () => (await get(`${server.url}/v1/leads/${crypto.randomUUID()}`, vendorAuth)).status;
    await waitUntil(async () => (await lookup()) === 404, 5_000, 50);
    const disabled = await run(["vendors", "disable", "pg-disabled-vendor", "--database", databaseUrl]);
    expect(disabled.code).toBe(0);
    const since = performance.now();
    await waitUntil(async () => (await lookup()) === 401, 5_000, 50);
    expect(performance.now() - since).toBeLessThan(2_000);
  });
});

describe("the database URL's password", () => {
  // serve waits for an unreachable server instead, and logs the same words: pg-startup.test.ts.
  test("migrate on an unreachable server: exit 1 with a message naming it, not its password", async () => {
    const away = new URL(databaseUrl);
    away.port = "1";
    away.password = "s3cret-in-url";
    const answer = await run(["migrate", "--database", away.toString()]);
    expect(answer.code).toBe(1);
    expect(answer.err.trim()).toBe(`could not open PostgreSQL at 127.0.0.1:1${away.pathname}: Failed to connect`);
    expect(answer.out + answer.err).not.toContain("s3cret-in-url");
  });

  test("the service's logs show the URL with its password masked (the test cluster trusts any password)", async () => {
    const withPassword = new URL(databaseUrl);
    withPassword.password = "s3cret-in-url";
    const child = await spawnServer(["--database", withPassword.toString(), "--worker", "false", "--shutdown-drain", "0ms"]);
    await child.stop();
    const listening = child.logs.find((entry) => entry.event === "listening");
    expect(listening?.database).toBe(databaseUrl.replace("postgres@", "postgres:***@"));
    expect(JSON.stringify(child.logs)).not.toContain("s3cret-in-url");
  });
});
