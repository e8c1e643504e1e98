// The replay's table: case | expected | got | result, a short line under each failure, a summary.
import type { CaseResult } from "./case.ts";
import type { ReplayReport } from "./runner.ts";

const COLUMN = 30;
const LABEL = { pass: "PASS", fail: "FAIL", skip: "SKIP" } as const;

function cell(text: string, width: number): string {
  return text.length > width ? `${text.slice(0, width - 1)}…` : text.padEnd(width);
}

export function tableHeader(nameWidth: number): string[] {
  const header = `${cell("case", nameWidth)} | ${cell("expected", COLUMN)} | ${cell("got", COLUMN)} | pass`;
  return [header, "-".repeat(header.length)];
}

export function tableRow(result: CaseResult, nameWidth: number): string[] {
  const row = `${cell(result.name, nameWidth)} | ${cell(result.expected, COLUMN)} | ${cell(result.got, COLUMN)} | ${LABEL[result.outcome]}`;
  // Skipped rows say why in "got"; the full text goes below when the cell cuts it short.
  const below = result.problem ?? (result.outcome === "skip" && result.got.length > COLUMN ? result.got : undefined);
  return below === undefined ? [row] : [row, `    ↳ ${below}`];
}

export function summaryLine(report: ReplayReport, durationMs: number): string {
  const total = report.results.length;
  const verdict = report.failed > 0 ? "FAILED" : "OK";
  return `${verdict}: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped of ${total} case(s) in ${(durationMs / 1000).toFixed(1)} s`;
}
