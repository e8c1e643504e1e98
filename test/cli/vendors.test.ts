// `vendors …` against the database of a running service: credentials printed once, and every
// change (disable, enable, new password, new secret) in force at once in the running service.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { basicAuth, post, startTestServer, type TestServer } from "../helpers/server.ts";
import { cli } from "../helpers/cli.ts";

let server: TestServer;
beforeAll(async () => (server = await startTestServer()));
afterAll(() => server.stop());

const vendors = (...args: string[]) => cli(server.config.databasePath, "vendors", ...args);
const printed = (out: string, label: string) => new RegExp(`^${label}:\\s+(\\S+)$`, "m").exec(out)?.[1];
const storedSecret = (name: string) =>
  (server.db.sqlite.query("SELECT signing_secret FROM vendors WHERE name = ?").get(name) as { signing_secret: string }).signing_secret;

test("add prints a generated password and the signing secret once; the vendor can authenticate at once", async () => {
  const added = await vendors("add", "acme");
  expect(added.code).toBe(0);
  const password = printed(added.out, "password")!;
  expect(password).toMatch(/^[\w-]{32}$/);
  expect(printed(added.out, "signing secret")).toBe(storedSecret("acme"));
  expect(added.out).toContain("not shown again");
  expect((await prePing(server, basicAuth("acme", password))).status).toBe(200);

  const listed = await vendors("list");
  expect(listed.code).toBe(0);
  expect(listed.out).toMatch(/^NAME\s+STATUS\s+CREATED\s+UPDATED$/m);
  expect(listed.out).toMatch(/^acme\s+enabled\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/m);
  expect(listed.out).not.toContain(password);
});

test("list --json gives names, states and ISO times, and never a secret", async () => {
  await vendors("add", "json-co", "--password", "json-co-password");
  const answer = await vendors("list", "--json");
  expect(answer.code).toBe(0);
  const list = JSON.parse(answer.out) as Record<string, unknown>[];
  expect(list.find((v) => v.name === "json-co")).toEqual({
    name: "json-co",
    enabled: true,
    created_at: expect.stringMatching(/Z$/),
    updated_at: expect.stringMatching(/Z$/),
  });
  expect(answer.out).not.toMatch(/whsec_|argon2|password/);
});

test("disable locks the vendor out of the running service at once; enable lets it back", async () => {
  await vendors("add", "switchy", "--password", "switchy-password");
  expect((await prePing(server, basicAuth("switchy", "switchy-password"))).status).toBe(200);
  expect(await vendors("disable", "switchy")).toEqual({ code: 0, out: "Vendor switchy is disabled.\n", err: "" });
  expect((await prePing(server, basicAuth("switchy", "switchy-password"))).status).toBe(401);
  expect((await vendors("list")).out).toMatch(/^switchy\s+disabled/m);
  expect(await vendors("enable", "switchy")).toEqual({ code: 0, out: "Vendor switchy is enabled.\n", err: "" });
  expect((await prePing(server, basicAuth("switchy", "switchy-password"))).status).toBe(200);
});

test("rotate-password prints the new password once; the old one stops working at once", async () => {
  await vendors("add", "rotor", "--password", "rotor-password-1");
  expect((await prePing(server, basicAuth("rotor", "rotor-password-1"))).status).toBe(200);
  const rotated = await vendors("rotate-password", "rotor");
  expect(rotated.code).toBe(0);
  const password = printed(rotated.out, "password")!;
  expect((await prePing(server, basicAuth("rotor", "rotor-password-1"))).status).toBe(401);
  expect((await prePing(server, basicAuth("rotor", password))).status).toBe(200);
  await vendors("rotate-password", "rotor", "--password", "rotor-password-2");
  expect((await prePing(server, basicAuth("rotor", "rotor-password-2"))).status).toBe(200);
});

test("rotate-secret prints the new signing secret once and stores it", async () => {
  await vendors("add", "signer", "--password", "signer-password");
  const before = storedSecret("signer");
  const rotated = await vendors("rotate-secret", "signer");
  expect(rotated.code).toBe(0);
  const secret = printed(rotated.out, "signing secret");
  expect(secret).toMatch(/^whsec_/);
  expect(secret).not.toBe(before);
  expect(storedSecret("signer")).toBe(secret!);
});

test("an unknown vendor is a clear error with exit code 2 for every subcommand that names one", async () => {
  const answers = await Promise.all(["show", "disable", "enable", "rotate-password", "rotate-secret"].map((sub) => vendors(sub, "ghost")));
  for (const answer of answers) expect(answer).toEqual({ code: 2, out: "", err: "No such vendor: ghost\n" });
  expect(await vendors("add", "acme")).toMatchObject({ code: 2, out: "", err: "Vendor already exists: acme\n" });
  expect(await vendors("add", "bad name")).toMatchObject({ code: 2, err: expect.stringContaining("Vendor name must be") });
});

test("show gives the vendor's state and its leads by status, never a secret", async () => {
  await vendors("add", "shown", "--password", "shown-password-1");
  const auth = { authorization: basicAuth("shown", "shown-password-1") };
  for (let i = 0; i < 2; i++) expect((await post(`${server.url}/v1/postLead`, validLead({ phone_number: uniquePhone() }), auth)).status).toBe(200);
  const shown = await vendors("show", "shown");
  expect(shown.code).toBe(0);
  expect(shown.out).toMatch(/^vendor:\s+shown\nstatus:\s+enabled\ncreated:\s+\S+Z\nupdated:\s+\S+Z\nleads:\s+2 pending, 0 accepted, 0 rejected\n$/);
  expect(shown.out).not.toContain(storedSecret("shown"));
  await vendors("disable", "shown");
  expect(JSON.parse((await vendors("show", "shown", "--json")).out)).toEqual({
    name: "shown",
    enabled: false,
    created_at: expect.stringMatching(/Z$/),
    updated_at: expect.stringMatching(/Z$/),
    leads: { pending: 2, accepted: 0, rejected: 0 },
  });
});
