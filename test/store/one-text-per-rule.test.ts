// "Is the number suppressed" is one SQL text (store/suppressions/listed.ts) that every statement
// asking it embeds, and the set-based statements live with their tables in store/: no statement
// elsewhere in src/ restates the suppression list or a decision check in SQL.
import { expect, test } from "bun:test";
import { Glob } from "bun";
import { join, relative } from "node:path";

const SRC = join(import.meta.dir, "../../src");

async function filesMatching(pattern: RegExp): Promise<string[]> {
  const found: string[] = [];
  for await (const path of new Glob("**/*.ts").scan(SRC)) {
    const text = await Bun.file(join(SRC, path)).text();
    if (pattern.test(text)) found.push(relative(SRC, join(SRC, path)));
  }
  return found.sort();
}

test("the suppression list is read in SQL text only by its one fragment", async () => {
  expect(await filesMatching(/FROM suppressions\b[^_]/i)).toEqual(["store/suppressions/listed.ts"]);
});

test("no raw SQL outside store/ and db/ (the batches' statements live with their tables)", async () => {
  const raw = await filesMatching(/\b(UPDATE \w+ (AS )?\w+ SET|INSERT INTO \w+|DELETE FROM \w+)/);
  expect(raw.filter((path) => !path.startsWith("store/") && !path.startsWith("db/"))).toEqual([]);
});
