// `vendors …` against the database of a running service: credentials printed once, and every
// change (disable, enable, new password, new secret) in force at once in the running service.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { prePing } from "../helpers/api.ts";
import { uniquePhone, validLead } from "../helpers/leads.ts";
import { basicAuth, post, startTestServer, type TestServer } from "../helpers/server.ts";
import { cli, run } from "../helpers/cli.ts";

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
  expect(listed.out).toMatch(/^NAME\s+STATUS\s+CREATED\s+UPDATED\s+OLD SECRET SIGNS UNTIL$/m);
  expect(listed.out).toMatch(/^acme\s+enabled\s+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\s+\S+Z\s+-$/m);
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
    old_secret_signs_until: null,
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

test("rotate-secret prints the new signing secret once and until when the old one signs beside it (24h by default); list and show say so", async () => {
  await vendors("add", "signer", "--password", "signer-password");
  const before = storedSecret("signer");
  const started = Date.now();
  const rotated = await vendors("rotate-secret", "signer");
  expect(rotated.code).toBe(0);
  const secret = printed(rotated.out, "signing secret");
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  expect(secret).not.toBe(before);
  expect(storedSecret("signer")).toBe(secret!);
  const until = printed(rotated.out, "old secret signs until")!;
  expect(Date.parse(until) - started).toBeWithin(86_400_000, 86_400_000 + (Date.now() - started) + 1);
  expect(rotated.out).toContain("Store it now and give it to the vendor: it is not shown again.");
  expect(rotated.out).toContain(`Until ${until} every callback carries two signatures, the new secret's and the old one's; after that only the new one's.`);

  const shown = await vendors("show", "signer");
  expect(shown.out).toMatch(new RegExp(`^signing secret:\\s+rotated: old and new both sign until ${until.replaceAll(".", "\\.")}$`, "m"));
  expect(shown.out).not.toMatch(/whsec_/);
  expect(JSON.parse((await vendors("show", "signer", "--json")).out)).toMatchObject({ old_secret_signs_until: until });
  const listed = await vendors("list");
  expect(listed.out).toMatch(new RegExp(`^signer\\s+enabled\\s+\\S+\\s+\\S+\\s+${until.replace(/\.\d{3}Z$/, "Z")}$`, "m"));
  expect(listed.out).not.toMatch(/whsec_/);
  expect(JSON.parse((await vendors("list", "--json")).out).find((v: { name: string }) => v.name === "signer")).toMatchObject({ old_secret_signs_until: until });
});

test("rotate-secret with an overlap of 0 (flag or environment) replaces the secret at once: nothing overlaps", async () => {
  await vendors("add", "instant", "--password", "instant-password");
  const rotated = await vendors("rotate-secret", "instant", "--signing-secret-overlap", "0s");
  expect(rotated.code).toBe(0);
  expect(printed(rotated.out, "signing secret")).toBe(storedSecret("instant"));
  expect(printed(rotated.out, "old secret signs until")).toBe("-");
  expect(rotated.out).toContain("Callbacks from now on (retries too) are signed with the new secret alone: the old one no longer signs.");
  expect((await vendors("show", "instant")).out).toMatch(/^signing secret:\s+one secret signs$/m);
  expect(JSON.parse((await vendors("show", "instant", "--json")).out)).toMatchObject({ old_secret_signs_until: null });

  const fromEnvironment = await run(["vendors", "rotate-secret", "instant", "--database", server.config.databasePath], undefined, {
    LEAD_INGRESS_SIGNING_SECRET_OVERLAP: "0s",
  });
  expect([fromEnvironment.code, printed(fromEnvironment.out, "old secret signs until")]).toEqual([0, "-"]);
});

test("rotating again during an overlap: the previous secret becomes the old one, with an overlap of its own; the oldest is dropped", async () => {
  await vendors("add", "twice", "--password", "twice-password");
  const first = await vendors("rotate-secret", "twice", "--signing-secret-overlap", "1h");
  const second = await vendors("rotate-secret", "twice", "--signing-secret-overlap", "2h");
  const row = server.db.sqlite.query("SELECT signing_secret, previous_signing_secret, previous_secret_until FROM vendors WHERE name = 'twice'").get() as Record<
    string,
    unknown
  >;
  expect(row).toEqual({
    signing_secret: printed(second.out, "signing secret"),
    previous_signing_secret: printed(first.out, "signing secret"),
    previous_secret_until: Date.parse(printed(second.out, "old secret signs until")!),
  });
});

test("rotate-secret refuses an overlap that is not a duration", async () => {
  const answer = await vendors("rotate-secret", "signer", "--signing-secret-overlap", "soon");
  expect(answer.code).not.toBe(0);
  expect(answer.err).toContain('--signing-secret-overlap="soon": expected a duration');
  expect(answer.out).toBe("");
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
  expect(shown.out).toMatch(
    /^vendor:\s+shown\nstatus:\s+enabled\ncreated:\s+\S+Z\nupdated:\s+\S+Z\nsigning secret:\s+one secret signs\nleads:\s+2 pending, 0 accepted, 0 rejected\n$/,
  );
  expect(shown.out).not.toContain(storedSecret("shown"));
  await vendors("disable", "shown");
  expect(JSON.parse((await vendors("show", "shown", "--json")).out)).toEqual({
    name: "shown",
    enabled: false,
    created_at: expect.stringMatching(/Z$/),
    updated_at: expect.stringMatching(/Z$/),
    old_secret_signs_until: null,
    leads: { pending: 2, accepted: 0, rejected: 0 },
  });
});
