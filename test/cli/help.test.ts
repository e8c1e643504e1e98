// Every command and subcommand answers --help (exit 0, on stdout); wrong usage is exit 2 with the
// reason and the usage on stderr.
import { afterAll, expect, test } from "bun:test";
import { join } from "node:path";
import { cli, emptyDatabase, run } from "../helpers/cli.ts";

const database = emptyDatabase();
afterAll(() => database.cleanup());

const SUBCOMMANDS: Record<string, string[]> = {
  vendors: ["add", "list", "show", "disable", "enable", "rotate-password", "rotate-secret"],
  suppress: ["add", "remove", "check", "list", "import"],
  leads: ["list", "show", "decide"],
  callbacks: ["list", "show", "retry", "replay"],
  checks: ["secret"],
};

test("--help lists every command; each command and subcommand has its own --help", async () => {
  const top = await run(["--help"]);
  expect(top.code).toBe(0);
  for (const command of ["serve", "migrate", ...Object.keys(SUBCOMMANDS), "mock-receiver"]) expect(top.out).toContain(`  ${command} `);

  const simple = await Promise.all(["serve", "migrate", "mock-receiver"].map((command) => run([command, "--help"])));
  for (const answer of simple) expect(answer).toMatchObject({ code: 0, out: expect.stringContaining("Usage"), err: "" });

  const groups = Object.entries(SUBCOMMANDS);
  const groupHelp = await Promise.all(groups.map(([group]) => run([group, "--help"])));
  groups.forEach(([group, subs], i) => {
    expect(groupHelp[i]!.code).toBe(0);
    for (const sub of subs) expect(groupHelp[i]!.out).toContain(`lead-ingress ${group} ${sub}`);
  });

  const pairs = groups.flatMap(([group, subs]) => subs.map((sub) => [group, sub] as const));
  const subHelp = await Promise.all(pairs.map(([group, sub]) => run([group, sub, "--help"])));
  pairs.forEach(([group, sub], i) => {
    const { code, out, err } = subHelp[i]!;
    expect({ code, err }).toEqual({ code: 0, err: "" });
    expect(out).toContain(`Usage:\n  lead-ingress ${group} ${sub}`);
    expect(out).toContain("--database FILE");
  });
});

test("unknown commands, missing and extra arguments are usage errors: exit 2, message and usage on stderr", async () => {
  const [unknown, unknownSub, noSub, missing, extra, badLimit, badStatus] = await Promise.all([
    run(["frobnicate"]),
    cli(database.path, "vendors", "frobnicate"),
    cli(database.path, "suppress"),
    cli(database.path, "vendors", "disable"),
    cli(database.path, "vendors", "list", "surplus"),
    cli(database.path, "leads", "list", "--limit", "0"),
    cli(database.path, "callbacks", "list", "--status", "lost"),
  ]);
  expect(unknown).toMatchObject({ code: 2, out: "", err: expect.stringContaining("Unknown command: frobnicate") });
  expect(unknownSub).toMatchObject({ code: 2, out: "", err: expect.stringContaining("Unknown command: vendors frobnicate") });
  expect(noSub).toMatchObject({ code: 2, out: "", err: expect.stringContaining("lead-ingress suppress import FILE.csv") });
  expect(missing).toMatchObject({ code: 2, out: "", err: expect.stringContaining("Missing NAME\n\nUsage:\n  lead-ingress vendors disable NAME") });
  expect(extra).toMatchObject({ code: 2, err: expect.stringContaining("Unexpected argument(s): surplus") });
  expect(badLimit).toMatchObject({ code: 2, err: expect.stringContaining("--limit: expected a whole number from 1 to 1000000") });
  expect(badStatus).toMatchObject({ code: 2, err: expect.stringContaining("--status must be one of held, pending, delivered, dead") });
});

test("an unknown command is one line that points to --help, not the whole help", async () => {
  expect(await run(["frobnicate"])).toEqual({ code: 2, out: "", err: "Unknown command: frobnicate ('lead-ingress --help' lists the commands)\n" });
});

test("a file that is not a database, or a folder, is one line naming it (exit 1, as an unreachable PostgreSQL)", async () => {
  const notDatabase = `${database.path}.txt`;
  await Bun.write(notDatabase, "phone\n2125550100\n");
  const folder = join(database.path, "..");
  expect(await cli(notDatabase, "vendors", "list")).toEqual({
    code: 1,
    out: "",
    err: `could not open the SQLite database ${notDatabase}: file is not a database\n`,
  });
  expect(await cli(folder, "leads", "list")).toEqual({ code: 1, out: "", err: `could not open the SQLite database ${folder}: unable to open database file\n` });
});

test("an operator command never creates a database: a wrong path is an error, not an empty list", async () => {
  const answer = await cli(`${database.path}.missing`, "vendors", "list");
  expect(answer).toMatchObject({ code: 2, out: "", err: expect.stringContaining(`No database at ${database.path}.missing`) });
  expect(await Bun.file(`${database.path}.missing`).exists()).toBe(false);
});

test("--version prints the product's version from package.json", async () => {
  const { version } = await Bun.file(new URL("../../package.json", import.meta.url)).json();
  expect(await run(["--version"])).toEqual({ code: 0, out: `lead-ingress ${version}\n`, err: "" });
});

test("a backup into a folder that does not exist is one clear line (exit 2), not a stack trace", async () => {
  const answer = await cli(database.path, "backup", "/no/such/folder/copy.db");
  expect(answer).toEqual({ code: 2, out: "", err: "Cannot write /no/such/folder/copy.db: the folder /no/such/folder does not exist\n" });
});

test("serve on a port another process holds says so in one line and exits 1", async () => {
  const holder = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("taken") });
  try {
    const answer = await cli(database.path, "serve", "--host", "127.0.0.1", "--port", String(holder.port));
    expect(answer).toEqual({
      code: 1,
      out: "",
      err: `Cannot listen on 127.0.0.1:${holder.port}: the port is in use by another process (choose another with --port)\n`,
    });
  } finally {
    holder.stop(true);
  }
});
