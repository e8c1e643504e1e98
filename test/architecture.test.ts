// The shape of src/: dependencies between its folders point one way (no folder imports a folder that
// imports it back, through any number of others), and every file fits on a few screens.
import { describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { dirname, relative, resolve, sep } from "node:path";

const SRC = resolve(import.meta.dir, "../src");
const MAX_FILE_LINES = 300;

const transpiler = new Bun.Transpiler({ loader: "ts" });

/**
 * Every module a source file imports: static imports, re-exports, dynamic `import()`, and the
 * type-only forms too (`import type`, `{ type X }`, `export type { }`), which the transpiler would
 * otherwise drop: a type is a dependency as much as a value is. (An `import("…")` type, of which
 * src/ has none, is not seen.)
 */
function importedSpecifiers(source: string): string[] {
  const typesAsValues = source
    .replace(/^#!.*/, "")
    .replace(/\bimport\s+type\s+(?!from\s*["'])(?=[\w${*])/g, "import ")
    .replace(/\bexport\s+type\s+(?=[*{])/g, "export ")
    .replace(/([{,]\s*)type\s+(?=[\w$]+\s*(?:,|\}|as\s))/g, "$1");
  return transpiler.scanImports(typesAsValues).map((entry) => entry.path);
}

/** The folder of src/ a file belongs to; a file at the top (main.ts, server.ts) stands for itself. */
function folderOf(path: string): string {
  return relative(SRC, path).split(sep)[0]!;
}

type Edge = { from: string; to: string; file: string; specifier: string };

async function sourceFiles(): Promise<string[]> {
  const files = await Array.fromAsync(new Glob("**/*.ts").scan({ cwd: SRC, absolute: true }));
  return files.sort();
}

async function folderEdges(): Promise<Edge[]> {
  const edges: Edge[] = [];
  for (const file of await sourceFiles()) {
    for (const specifier of importedSpecifiers(await Bun.file(file).text())) {
      if (!specifier.startsWith(".")) continue;
      const target = resolve(dirname(file), specifier);
      if (relative(SRC, target).startsWith("..")) continue;
      const [from, to] = [folderOf(file), folderOf(target)];
      if (from !== to) edges.push({ from, to, file: relative(SRC, file), specifier });
    }
  }
  return edges;
}

/** The strongly connected groups of a directed graph with more than one member (Tarjan). */
function cyclicGroups(graph: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
      }
    }
    if (lowLink.get(node) !== index.get(node)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== node);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return groups;
}

/** One shortest cycle through `start` inside its group, as a path that ends where it begins. */
function cycleThrough(graph: ReadonlyMap<string, ReadonlySet<string>>, start: string): string[] {
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift()!;
    for (const next of [...(graph.get(node) ?? [])].sort()) {
      if (next === start) {
        const path = [start];
        for (let at = node; at !== start; at = cameFrom.get(at)!) path.splice(1, 0, at);
        return [...path, start];
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return [];
}

function graphOf(edges: readonly Edge[]): Map<string, Set<string>> {
  const graph = new Map<string, Set<string>>();
  for (const { from, to } of edges) {
    if (!graph.has(from)) graph.set(from, new Set());
    graph.get(from)!.add(to);
  }
  return graph;
}

/** A cycle named with one importing file per step, e.g. "auth → db (db/x.ts imports ../auth/y.ts)". */
function describeCycle(cycle: readonly string[], edges: readonly Edge[]): string {
  const steps = cycle.slice(1).map((to, i) => {
    const from = cycle[i]!;
    const edge = edges.find((e) => e.from === from && e.to === to)!;
    return `  ${from} → ${to}  (${edge.file} imports "${edge.specifier}")`;
  });
  return `${cycle.join(" → ")}\n${steps.join("\n")}`;
}

describe("the import scanner", () => {
  test("finds static, type-only, re-exported and dynamic imports, and none in comments or strings", () => {
    const source = [
      `import { a } from "./a.ts";`,
      `import type { B } from "./b.ts";`,
      `import { type C, d } from "./c.ts";`,
      `import { type E } from "./e.ts";`,
      `export { f } from "./f.ts";`,
      `export type { G } from "./g.ts";`,
      `export * from "./h.ts";`,
      `import "./i.ts";`,
      `const j = await import("./j.ts");`,
      `// import { k } from "./k.ts";`,
      `const text = 'import { l } from "./l.ts"';`,
      `export type M = { type: string };`,
    ].join("\n");
    expect(importedSpecifiers(source).sort()).toEqual(["./a.ts", "./b.ts", "./c.ts", "./e.ts", "./f.ts", "./g.ts", "./h.ts", "./i.ts", "./j.ts"]);
  });

  test("the cycle finder sees cycles of any length, not just pairs", () => {
    const graph = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a", "d"])],
      ["d", new Set<string>()],
    ]);
    expect(cyclicGroups(graph)).toEqual([["a", "b", "c"]]);
    expect(cycleThrough(graph, "a")).toEqual(["a", "b", "c", "a"]);
  });
});

test("no folder of src/ imports a folder that imports it back, directly or through others", async () => {
  const edges = await folderEdges();
  const graph = graphOf(edges);
  const cycles = cyclicGroups(graph).map(
    (group) => `folders ${group.join(", ")} import each other, e.g. ${describeCycle(cycleThrough(graph, group[0]!), edges)}`,
  );
  expect(cycles).toEqual([]);
});

test(`no file in src/ is over ${MAX_FILE_LINES} lines`, async () => {
  const tooLong: string[] = [];
  for (const file of await sourceFiles()) {
    const lines = (await Bun.file(file).text()).split("\n").length - 1;
    if (lines > MAX_FILE_LINES) tooLong.push(`${relative(SRC, file)}: ${lines} lines`);
  }
  expect(tooLong).toEqual([]);
});
