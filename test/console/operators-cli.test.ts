// `operators …`: accounts for the console, created with argon2id hashes, passwords shown once or
// read from stdin, and every change in the audit log under the OS user who ran the command.
import { afterAll, expect, test } from "bun:test";
import { openDatabase } from "../../src/db/client.ts";
import { OS_ACTOR } from "../cli/os-actor.ts";
import { cli, emptyDatabase, run } from "../helpers/cli.ts";

const database = emptyDatabase();
afterAll(() => database.cleanup());

const operators = (...args: string[]) => cli(database.path, "operators", ...args);
const query = <T>(sql: string, ...params: string[]) => {
  const handle = openDatabase(database.path);
  try {
    return handle.sqlite.query(sql).all(...params) as T[];
  } finally {
    handle.sqlite.close();
  }
};

test("add prints a generated password once and stores only its argon2id hash; list never shows it", async () => {
  const added = await operators("add", "alice");
  expect(added.code).toBe(0);
  const password = /^password:\s+(\S+)$/m.exec(added.out)?.[1];
  expect(password).toMatch(/^[\w-]{32}$/);
  expect(added.out).toContain("not shown again");
  const [row] = query<{ password_hash: string; enabled: number }>("SELECT password_hash, enabled FROM operators WHERE name = 'alice'");
  expect(row!.password_hash).toStartWith("$argon2id$");
  expect(await Bun.password.verify(password!, row!.password_hash)).toBe(true);

  const listed = await operators("list");
  expect(listed.out).toMatch(/^alice\s+enabled\s+\d{4}-/m);
  expect(listed.out).not.toContain(password!);
});

test("add --password-stdin takes the first line of standard input and prints no password", async () => {
  const added = await run(["operators", "add", "bob", "--password-stdin", "--database", database.path], "bob-password-long-enough\nignored\n");
  expect(added).toMatchObject({ code: 0, out: "Operator bob is added.\n" });
  const [row] = query<{ password_hash: string }>("SELECT password_hash FROM operators WHERE name = 'bob'");
  expect(await Bun.password.verify("bob-password-long-enough", row!.password_hash)).toBe(true);
});

test("a short password, a taken name or an unknown operator is one line on stderr and exit 2", async () => {
  const added = await run(["operators", "add", "carol", "--password-stdin", "--database", database.path], "short\n");
  expect(added).toMatchObject({ code: 2, err: "Password must be at least 12 characters\n" });
  expect(await operators("add", "alice")).toMatchObject({ code: 2, err: "Operator already exists: alice\n" });
  expect(await operators("disable", "nobody")).toMatchObject({ code: 2, err: "No such operator: nobody\n" });
});

test("disable and enable switch the operator; every change is audited with the OS user", async () => {
  await operators("add", "dave");
  expect(await operators("disable", "dave")).toMatchObject({ code: 0, out: "Operator dave is disabled.\n" });
  expect(query<{ enabled: number }>("SELECT enabled FROM operators WHERE name = 'dave'")[0]!.enabled).toBe(0);
  expect(await operators("enable", "dave")).toMatchObject({ code: 0, out: "Operator dave is enabled.\n" });

  const audit = query<{ actor: string; action: string; subject: string }>("SELECT actor, action, subject FROM audit_log WHERE subject = 'dave' ORDER BY id");
  const actor = OS_ACTOR;
  expect(audit).toEqual([
    { actor, action: "operator.add", subject: "dave" },
    { actor, action: "operator.disable", subject: "dave" },
    { actor, action: "operator.enable", subject: "dave" },
  ]);
});

test("audit list shows the log newest first, as a table or JSON", async () => {
  const table = await cli(database.path, "audit", "list", "--limit", "2");
  expect(table.code).toBe(0);
  const actor = OS_ACTOR;
  expect(table.out.split("\n")).toEqual([
    expect.stringMatching(/^AT\s+ACTOR\s+ACTION\s+SUBJECT\s+DETAIL$/),
    expect.stringMatching(new RegExp(`^\\d{4}-\\S+Z\\s+${actor}\\s+operator\\.enable\\s+dave$`)),
    expect.stringMatching(new RegExp(`^\\d{4}-\\S+Z\\s+${actor}\\s+operator\\.disable\\s+dave$`)),
    "(the newest 2; --limit N shows more)",
    "",
  ]);
  const [newest] = JSON.parse((await cli(database.path, "audit", "list", "--json")).out);
  expect(newest).toEqual({ at: expect.stringMatching(/Z$/), actor, action: "operator.enable", subject: "dave", detail: null });
});
