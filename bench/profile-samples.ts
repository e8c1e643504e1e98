// `bun bench/profile-samples.ts FILE.cpuprofile [top=40] [filter]`: a CPU profile (`bun --cpu-prof`,
// e.g. bench/profile-intake.ts's) read by samples: per function (name, file:line), the share of the
// samples where it runs itself (self) and where it is on the stack (inclusive, counted once per
// sample however often it recurses). `filter`: only functions whose name or file contains it.
import { readFileSync } from "node:fs";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
const [file, topArg, filter] = process.argv.slice(2);
if (!file) throw new Error("usage: bun bench/profile-samples.ts FILE.cpuprofile [top] [filter]");
const profile = JSON.parse(readFileSync(file, "utf8")) as { nodes: Node[]; samples: number[] };
const top = Number(topArg ?? 40);

const parent = new Map<number, number>();
const byId = new Map<number, Node>();
for (const node of profile.nodes) {
  byId.set(node.id, node);
  for (const child of node.children ?? []) parent.set(child, node.id);
}
const nameOf = ({ callFrame: { functionName, url, lineNumber } }: Node) =>
  `${functionName || "(anonymous)"} ${url.replace(/^.*\/(src|node_modules)\//, "$1/")}:${lineNumber + 1}`;

const self = new Map<string, number>();
const inclusive = new Map<string, number>();
const add = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1);
let busy = 0;
for (const sample of profile.samples) {
  const leaf = byId.get(sample)!;
  // The event loop waiting: not CPU.
  if (leaf.callFrame.functionName === "(idle)") continue;
  busy++;
  add(self, nameOf(leaf));
  const seen = new Set<string>();
  for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) {
    const name = nameOf(byId.get(id)!);
    if (!seen.has(name)) add(inclusive, name), seen.add(name);
  }
}
const pct = (n: number) => `${((100 * n) / busy).toFixed(1).padStart(5)}%`;
const table = (title: string, map: Map<string, number>) => {
  console.log(`\n${title} (of ${busy} busy samples)`);
  [...map]
    .filter(([name]) => !filter || name.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([name, n]) => console.log(`${pct(n)}  self ${pct(self.get(name) ?? 0)}  ${name}`));
};
table("self", self);
table("inclusive", inclusive);
