// The README's configuration table documents every option the code accepts, with its default.
import { expect, test } from "bun:test";
import { join } from "node:path";
import { OPTIONS } from "../../src/config/index.ts";

const readme = await Bun.file(join(import.meta.dir, "../../README.md")).text();
const rows = readme.split("\n").filter((line) => line.startsWith("| `--"));

test.each(OPTIONS.map((o) => [o.flag, o.env] as const))("README documents %s / %s in one table row", (flag, env) => {
  expect(rows.filter((row) => row.includes(`\`${flag}\``) && row.includes(`\`${env}\``))).toHaveLength(1);
});

test("the table has no row for an option that does not exist", () => {
  const flags = rows.map((row) => /^\| `(--[a-z-]+)`/.exec(row)?.[1]);
  expect(flags.sort()).toEqual(OPTIONS.map((o) => o.flag).sort());
});
