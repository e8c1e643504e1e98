// Comments, tests, fixtures and pages cite the behaviour the service promises as `docs/<page>.md §N`.
// Every such citation must name a page in the repository and a section heading of that page, and
// nothing may cite the specification files that never were in the repository (issue 26 item 6).
import { expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const root = join(import.meta.dir, "../..");
const SCANNED = ["src/**/*", "test/**/*", "fixtures/**/*", "bench/**/*", "scripts/**/*", "monitoring/**/*", "docs/**/*.md", "README.md"];

function scannedFiles(): string[] {
  const files = new Set<string>();
  for (const pattern of SCANNED) for (const file of new Bun.Glob(pattern).scanSync({ cwd: root })) files.add(file);
  return [...files].filter((file) => /\.(ts|js|json|md|sh|yml|yaml|lua|service|txt)$/.test(file)).sort();
}

/** A comment's lines joined into one, so that a citation broken across lines is read whole. */
const joinComments = (text: string) => text.replace(/\n\s*(?:\/\/|\*|#)?\s*/g, " ");

const files = scannedFiles().map((path) => ({ path, text: joinComments(readFileSync(join(root, path), "utf8")) }));

/** Section numbers of a page: "## 4. Title" gives "4", "### 2.1 Title" gives "2.1". */
function sectionsOf(page: string): Set<string> {
  const text = readFileSync(join(root, page), "utf8");
  return new Set([...text.matchAll(/^#{2,4} (\d+(?:\.\d+)*)\.?\s/gm)].map((match) => match[1]!));
}

/** Every `docs/<page>.md` followed by section numbers (`§4`, `§4-§6`, `§1, §9`), with the numbers. */
function citations(text: string): { page: string; sections: string[] }[] {
  return [...text.matchAll(/docs\/([a-z0-9-]+\.md)((?:\s*(?:,|and|-|–)?\s*§\d+(?:\.\d+)*)*)/g)].map((match) => ({
    page: `docs/${match[1]}`,
    sections: [...match[2]!.matchAll(/§(\d+(?:\.\d+)*)/g)].map((section) => section[1]!),
  }));
}

test("the scan reads the source, the tests and the pages", () => {
  expect(files.some((file) => file.path === "src/contract/texts.ts")).toBe(true);
  expect(files.some((file) => file.path === "docs/contract.md")).toBe(true);
  // Joined, so that this file does not cite a section the page lacks.
  expect(citations(`see ${"docs"}/contract.md §4-§6 and §8.1`)).toEqual([{ page: "docs/contract.md", sections: ["4", "6", "8.1"] }]);
});

test("every docs/<page>.md §N citation names an existing page and one of its section headings", () => {
  const broken: string[] = [];
  const sections = new Map<string, Set<string>>();
  for (const file of files) {
    for (const citation of citations(file.text)) {
      if (!existsSync(join(root, citation.page))) {
        broken.push(`${file.path}: ${citation.page} does not exist`);
        continue;
      }
      if (!sections.has(citation.page)) sections.set(citation.page, sectionsOf(citation.page));
      for (const section of citation.sections)
        if (!sections.get(citation.page)!.has(section)) broken.push(`${file.path}: ${citation.page} has no section ${section}`);
    }
  }
  expect(broken).toEqual([]);
  // The citations this test guards are many; a scan that found none would prove nothing.
  expect(files.filter((file) => citations(file.text).some((citation) => citation.page === "docs/contract.md")).length).toBeGreaterThan(40);
});

test("every section of bench/README.md cited by its name (bench/README.md, then the name in quotes) is one of its headings", () => {
  const headings = readFileSync(join(root, "bench/README.md"), "utf8")
    .split("\n")
    .filter((line) => line.startsWith("## "));
  const broken = files.flatMap((file) =>
    [...file.text.matchAll(/bench\/README\.md, "([^"]+)"/g)]
      .filter((match) => !headings.some((heading) => heading.slice(3).startsWith(match[1]!)))
      .map((match) => `${file.path}: ${match[1]}`),
  );
  expect(broken).toEqual([]);
  expect(files.some((file) => /bench\/README\.md, "/.test(file.text))).toBe(true);
});

test("nothing cites the specification files that are not in the repository", () => {
  const spec = ["CON", "TRACT"].join("");
  const vendorSpec = ["INTER", "FACE"].join("");
  const outside = new RegExp(`\\b(${spec}|${vendorSpec})(\\.md|\\s+§)`);
  expect(files.filter((file) => outside.test(file.text)).map((file) => file.path)).toEqual([]);
});

test("every relative link of the READMEs and the docs pages names a file in the repository", () => {
  const broken: string[] = [];
  for (const file of files.filter((f) => f.path.endsWith(".md"))) {
    for (const match of file.text.matchAll(/\]\(([^)#\s]+)(#[^)\s]*)?\)/g)) {
      const target = match[1]!;
      if (/^[a-z]+:/.test(target)) continue;
      const path = resolve(root, file.path, "..", target);
      if (!existsSync(path)) broken.push(`${file.path}: ${relative(root, path)}`);
    }
  }
  expect(broken).toEqual([]);
});
