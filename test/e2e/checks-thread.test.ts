// The checks' thread in the product, run as an operator runs it (the source, or the compiled binary
// under LEAD_INGRESS_TEST_BINARY, whose thread entry must be found inside it): no thread while the
// policy in force has no intake check, leads included; one started as soon as an imported policy
// has one, before any lead asks it; and the lead's check then asked through it. SQLite: the wiring
// is the app's whatever the database (the check tests cover PostgreSQL).
import { afterAll, expect, test } from "bun:test";
import { defaultConfig } from "../../src/config/index.ts";
import { importPolicy } from "../../src/policy-in-force/manage.ts";
import { postLead, prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { spawnServer } from "../helpers/process.ts";
import { basicAuth, configFlags, openTestStore, tempDatabasePath, VENDOR } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

/** The intake check's requests (the final-stage one's, asked by the worker during the hold, are not kept). */
const asked: unknown[] = [];
const service = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    if (new URL(request.url).pathname === "/scrub") asked.push(await request.json());
    return Response.json({ outcome: "pass", reason: "clean" });
  },
});
const temp = tempDatabasePath();
afterAll(() => {
  service.stop(true);
  temp.cleanup();
});

test("no checks' thread while the policy has no intake check; one as soon as it has, before any lead; leads then asked through it", async () => {
  const config = { ...defaultConfig(), databasePath: temp.path, bootstrapVendor: VENDOR, allowPrivateCallbacks: true, shutdownDrainMs: 0 };
  const server = await spawnServer(configFlags(config));
  const own = await openTestStore(temp.path);
  const auth = basicAuth(VENDOR.name, VENDOR.password);
  const threadStarts = () => server.logs.filter((line) => line.event === "checks_thread_started").length;
  try {
    expect((await postLead(server, auth, validLead({ phone_number: uniquePhone() }))).status).toBe(200);
    // A policy with a final-stage check only: still no intake check to ask.
    const finalOnly = { checks: [{ name: "later", stage: "final", url: `http://127.0.0.1:${service.port}/later` }] };
    expect((await importPolicy(own.store, JSON.stringify(finalOnly), "cli:test")).kind).toBe("imported");
    await Bun.sleep(1_500); // the policy's reload (every second)
    expect((await postLead(server, auth, validLead({ phone_number: uniquePhone() }))).status).toBe(200);
    await Bun.sleep(300);
    expect(threadStarts()).toBe(0);

    const withCheck = { checks: [{ name: "scrub", url: `http://127.0.0.1:${service.port}/scrub`, send: ["phone_number"] }] };
    expect((await importPolicy(own.store, JSON.stringify(withCheck), "cli:test")).kind).toBe("imported");
    // prePings ask no check; the first request after the reload finds the new policy and starts the thread.
    await waitUntil(
      async () => {
        await prePing(server, auth);
        return threadStarts() === 1;
      },
      10_000,
      100,
    );
    expect(asked).toEqual([]);
    const phone = uniquePhone();
    const accepted = await postLead(server, auth, validLead({ phone_number: phone }));
    expect(accepted.status).toBe(200);
    expect(asked).toEqual([expect.objectContaining({ check: "scrub", fields: { phone_number: `+1${phone.replace(/\D/g, "")}` } })]);
    expect(threadStarts()).toBe(1);
    expect(server.logs.filter((line) => line.event === "checks_thread_failed")).toEqual([]);
  } finally {
    await server.stop();
    await own.close();
  }
});
