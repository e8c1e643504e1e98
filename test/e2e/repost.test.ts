// A retry after a lost answer (issue 16 item 7, docs/contract.md §6): the vendor's first postLead was
// stored but its answer never arrived (the connection dropped, then the server was killed with
// SIGKILL). Its re-post, without an Idempotency-Key, gets the stored lead's id back. On either
// backend (LEAD_INGRESS_TEST_BACKEND).
import { expect, test } from "bun:test";
import { connect } from "node:net";
import { createVendor } from "../../src/auth/vendors.ts";
import { validLead } from "../helpers/leads.ts";
import { spawnServer } from "../helpers/process.ts";
import { afterVendorChange, basicAuth, post, testDatabase, VENDOR } from "../helpers/server.ts";
import { waitUntil } from "../helpers/wait.ts";

/** Sends a whole postLead and hangs up at once, without reading the answer. */
function postAndHangUp(url: string, body: string): Promise<void> {
  const { hostname, port } = new URL(url);
  const request = [
    "POST /v1/postLead HTTP/1.1",
    `Host: ${hostname}:${port}`,
    `Authorization: ${basicAuth(VENDOR.name, VENDOR.password)}`,
    "Content-Type: application/json",
    `Content-Length: ${Buffer.byteLength(body)}`,
    "",
    body,
  ].join("\r\n");
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request, () => (socket.destroy(), resolve())));
    socket.on("error", reject);
  });
}

test("postLead's answer lost, server killed with SIGKILL, restarted: the re-post without a key gets the stored lead's id", async () => {
  const database = await testDatabase();
  const args = ["--database", database.setting, "--bootstrap-vendor", `${VENDOR.name}:${VENDOR.password}`, "--hold-period", "1h"];
  let server = await spawnServer(args);
  try {
    const lead = validLead({ extra_data: { source: "web", page: 2 } });
    await postAndHangUp(server.url, JSON.stringify(lead));
    const storedIds = async () => (await database.rows("SELECT id FROM leads")).map((row) => row.id as string);
    await waitUntil(async () => (await storedIds()).length === 1, 10_000);
    expect(await server.stop("SIGKILL")).not.toBe(0);
    server = await spawnServer(args);

    // The retry spells the same lead differently: keys reordered, indented, a value padded.
    const respelled = JSON.stringify(
      { ...Object.fromEntries(Object.entries(lead).reverse()), city: ` ${lead.city} `, extra_data: { page: 2, source: "web" } },
      null,
      2,
    );
    const retry = await post(`${server.url}/v1/postLead`, respelled, { authorization: basicAuth(VENDOR.name, VENDOR.password) });
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBe("true");
    expect(retry.body).toEqual({
      success_bit: true,
      message: "Lead received; the final result will be sent to the callback URL.",
      lead_id: (await storedIds())[0],
    });
    expect(await storedIds()).toHaveLength(1);
    expect((await database.rows("SELECT count(*) AS n FROM callbacks"))[0]!.n).toBe(1);

    // Another vendor posting the same lead, or this vendor another lead with the number: 422.
    await createVendor(await database.store(), "vendor-b", "password-b-123");
    await afterVendorChange();
    const other = await post(`${server.url}/v1/postLead`, lead, { authorization: basicAuth("vendor-b", "password-b-123") });
    expect(other.status).toBe(422);
    const changed = await post(
      `${server.url}/v1/postLead`,
      { ...lead, customer_name: "Someone Else" },
      { authorization: basicAuth(VENDOR.name, VENDOR.password) },
    );
    expect(changed.status).toBe(422);
    expect(await storedIds()).toHaveLength(1);
  } finally {
    await server.stop("SIGKILL");
    await database.close();
  }
}, 60_000);
