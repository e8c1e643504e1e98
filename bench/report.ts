// The benchmark's output: a table on stdout, the ratios against their goals, and a JSON file.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { LoadResult } from "./drive.ts";

export interface ScenarioResult {
  key: string;
  title: string;
  /** The status every answer of this scenario should have (or `expectShare` of them, when less). */
  expectStatus: number;
  expectShare?: number;
  result: LoadResult;
}

export interface Ratio {
  title: string;
  /** The figure the goal is judged on (with `rounds`, their median). */
  value: number;
  goal: number;
  /** The ratio of each round, when it was measured in several. */
  rounds?: number[];
}

/** Share of answers (any HTTP status; connection errors are not answers) with the expected status. */
export function expectedShare(s: ScenarioResult): number {
  const answers = Object.values(s.result.statusCodes).reduce((a, b) => a + b, 0);
  return answers === 0 ? 0 : (s.result.statusCodes[String(s.expectStatus)] ?? 0) / answers;
}

/** The problems worth a warning: wrong statuses, connection errors, timeouts. */
export function checkScenario(s: ScenarioResult): string[] {
  const warnings: string[] = [];
  const share = expectedShare(s);
  const want = 0.99 * (s.expectShare ?? 1);
  if (share < want) {
    warnings.push(
      `${s.title}: only ${(share * 100).toFixed(2)}% of answers were ${s.expectStatus} (want ≥ ${(want * 100).toFixed(0)}%); statuses ${JSON.stringify(s.result.statusCodes)}`,
    );
  }
  if (s.result.errors > 0 || s.result.timeouts > 0) warnings.push(`${s.title}: ${s.result.errors} connection errors, ${s.result.timeouts} timeouts`);
  return warnings;
}

const num = (n: number, digits: number) => n.toFixed(digits);

export function printTable(scenarios: ScenarioResult[]): void {
  const header = ["scenario", "req/s", "p50 ms", "p99 ms", "non-2xx", "statuses"];
  const rows = scenarios.map((s) => [
    s.title,
    num(s.result.requestsPerSec, 0),
    num(s.result.p50Ms, 2),
    num(s.result.p99Ms, 2),
    String(s.result.non2xx),
    Object.entries(s.result.statusCodes)
      .map(([code, count]) => `${code}:${count}`)
      .join(" "),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  // Text columns left-aligned, numbers right-aligned.
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 || i === cells.length - 1 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join(" | ")
      .trimEnd();
  console.log(line(header));
  console.log(widths.map((w) => "-".repeat(w)).join("-|-"));
  for (const row of rows) console.log(line(row));
}

export function printRatios(ratios: Ratio[]): void {
  for (const r of ratios) {
    const verdict = r.value >= r.goal ? "met" : "NOT MET";
    const spread = r.rounds && r.rounds.length > 1 ? `, median of ${r.rounds.map((v) => v.toFixed(2)).join(", ")}` : "";
    console.log(`${r.title} = ${r.value.toFixed(2)}${spread} (goal ≥ ${r.goal.toFixed(2)}) ${verdict}`);
  }
}

export function writeJson(path: string, data: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(data, null, 2)}\n`);
}
