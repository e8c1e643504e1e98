// The configuration table (docs/configuration.md, linked from the README) documents every option the
// code accepts, with its default.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { OPTIONS } from "../../src/config/index.ts";

const table = await Bun.file(join(import.meta.dir, "../../docs/configuration.md")).text();
const rows = table.split("\n").filter((line) => line.startsWith("| `--"));

test.each(OPTIONS.map((o) => [o.flag, o.env] as const))("docs/configuration.md documents %s / %s in one table row", (flag, env) => {
  expect(rows.filter((row) => row.includes(`\`${flag}\``) && row.includes(`\`${env}\``))).toHaveLength(1);
});

test.each(OPTIONS.map((o) => [o.flag, o.default ?? "none"] as const))("docs/configuration.md gives %s the default the code declares (%s)", (flag, declared) => {
  const row = rows.find((line) => line.startsWith(`| \`${flag}\``))!;
  expect(row.split(" | ")[2]).toBe(declared === "none" ? "none" : `\`${declared}\``);
});

test("the table has no row for an option that does not exist", () => {
  const flags = rows.map((row) => /^\| `(--[a-z-]+)`/.exec(row)?.[1]);
  expect(flags.sort()).toEqual(OPTIONS.map((o) => o.flag).sort());
});

const readme = await Bun.file(join(import.meta.dir, "../../README.md")).text();

test("the README links every page of docs/, where its reference material lives", () => {
  const pages = [...new Bun.Glob("*.md").scanSync({ cwd: join(import.meta.dir, "../../docs") })].sort();
  expect(pages.length).toBeGreaterThan(0);
  expect(pages.filter((page) => !readme.includes(`](docs/${page})`))).toEqual([]);
});

test("the README says why each dependency is there: one row of its dependency table per package", async () => {
  const pkg = await Bun.file(join(import.meta.dir, "../../package.json")).json();
  const names = [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.devDependencies ?? {})];
  const table = readme.slice(readme.indexOf("## Dependencies and why"));
  const rows = table.split("\n").filter((line) => line.startsWith("| `"));
  expect(names.filter((name) => !rows.some((row) => row.split("|")[1]!.includes(`\`${name}\``)))).toEqual([]);
});
